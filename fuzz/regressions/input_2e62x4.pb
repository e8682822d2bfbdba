
a
msjit-mindir-1msjit-tests"B
x
€€€€€€€€@
Neg_1"$
Neg_1Negx"Neg_12
model.py
O1