#!/usr/bin/env bash
# Generates the Python protobuf/gRPC modules into OUT_DIR as package `msjit.proto`.
# protoc emits `from proto import x_pb2` for imports between our files; rewrite
# those to the package path so the modules work from anywhere.
set -euo pipefail
out=$1; shift
tmp=$(mktemp -d)
/usr/bin/protoc --proto_path=. --python_out="$tmp" --grpc_python_out="$tmp" \
  --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin "$@"
mkdir -p "$out"
for f in "$tmp"/proto/*.py; do
  sed -e 's/^from proto import /from msjit.proto import /' "$f" > "$out/$(basename "$f")"
done
touch "$out/__init__.py"
rm -rf "$tmp"
