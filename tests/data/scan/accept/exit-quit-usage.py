def main():
    print('done')
    return 0
raise SystemExit(main())
