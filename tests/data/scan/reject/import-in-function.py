# expect: forbidden-import
def f():
    import socket
    return socket.socket()
f()
