
~
msjit-mindir-1msjit-tests"_
c
x
y

Select_1"3
Select_1Selectcxy"Select_12
model.py
O1