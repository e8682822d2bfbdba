
k
msjit-mindir-1msjit-tests"L	
x
Triu_1"5
Triu_1Triux"Triu_1*
diagonal2
model.py
O1