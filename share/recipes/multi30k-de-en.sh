#!/usr/bin/env bash
# Trains the shipped German->English model (share/models/multi30k-de-en) on Multi30k and scores
# it on test_2016_flickr: share/recipes/multi30k.sh with de en (the recipe is there).
#   share/recipes/multi30k-de-en.sh CORPUS_DIR [RUN_DIR] [EPOCHS]
exec "$(dirname "$0")/multi30k.sh" de en "$@"
