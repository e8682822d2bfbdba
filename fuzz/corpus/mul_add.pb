
 
msjit-mindir-1msjit-tests"€	
a	
b	
c
Add_2"'
Mul_1Mulab"Mul_12
model.py"+
Add_2AddMul_1c"Add_22
model.py
O1