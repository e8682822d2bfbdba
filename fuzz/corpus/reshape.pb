
x
msjit-mindir-1msjit-tests"Y	
x
	Reshape_1"?
	Reshape_1Reshapex"	Reshape_1*
shape:
2
model.py
O1