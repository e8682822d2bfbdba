
p
msjit-mindir-1msjit-tests"Q	
x
Tile_1":
Tile_1Tilex"Tile_1*
	multiples:
2
model.py
O1