print("hello from the sandbox")
