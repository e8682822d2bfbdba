
ˆ
msjit-mindir-1msjit-tests"i	
x
BroadcastTo_1"K
BroadcastTo_1BroadcastTox"BroadcastTo_1*
shape:
2
model.py
O1