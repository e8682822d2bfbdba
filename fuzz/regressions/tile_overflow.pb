
v
msjit-mindir-1msjit-tests"W
x
Tile_1"A
Tile_1Tilex"Tile_1*
	multiples:
	€€€€€€€€@2
model.py
O1