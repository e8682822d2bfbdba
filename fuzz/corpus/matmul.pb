
—
msjit-mindir-1msjit-tests"x

a

b

MatMul_1"R
MatMul_1MatMulab"MatMul_1*
transpose_a(*
transpose_b(2
model.py
O1