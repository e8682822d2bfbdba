
d
msjit-mindir-1msjit-tests"E
x
Cast_1"/
Cast_1Castx"Cast_1*
toH2
model.py
O1