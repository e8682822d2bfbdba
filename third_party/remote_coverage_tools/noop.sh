#!/bin/sh
# Coverage is not used; cc_test only needs these targets to exist.
exit 0
