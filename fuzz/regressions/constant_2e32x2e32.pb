
o
msjit-mindir-1msjit-tests"P	
Const_1"C
Const_1Constant"Const_1*
value2
€€€€€€€€2
model.py
O1