# expect: forbidden
import enum
E = enum.Enum('E', 'A B')
x = E.A
