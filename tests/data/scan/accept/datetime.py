from datetime import date, timedelta, datetime, time
d = date(2024, 1, 31) + timedelta(days=1)
print(d.isoformat(), d.weekday())
print(datetime(2020, 5, 17, 10, 30).strftime('%Y-%m-%d %H:%M'))
print(time(12, 0))
