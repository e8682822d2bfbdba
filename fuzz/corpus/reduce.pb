
‘
msjit-mindir-1msjit-tests"r	
x
ReduceMean_1"U
ReduceMean_1
ReduceMeanx"ReduceMean_1*
axes:
*
	keep_dims(2
model.py
O1