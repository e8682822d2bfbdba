
€
msjit-mindir-1msjit-tests"a	
x	
y

Concat_1"=
Concat_1Concatxyx"Concat_1*
axis2
model.py
O1