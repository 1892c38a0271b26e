#!/bin/bash
. "$(dirname "$0")/guest_lib.sh"
finish
