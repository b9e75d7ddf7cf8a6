# expect: forbidden
import socket
s = socket.socket()
