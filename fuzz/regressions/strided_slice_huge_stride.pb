
¹
msjit-mindir-1msjit-tests"™
x
StridedSlice_1"{
StridedSlice_1StridedSlicex"StridedSlice_1*
begin:
*
end:

ÿÿÿÿÿÿÿÿÿ*
strides:

€€€€€€€€€2
model.py
O1