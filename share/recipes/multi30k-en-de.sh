#!/usr/bin/env bash
# Trains the shipped English->German model (share/models/multi30k-en-de) on Multi30k and scores
# it on test_2016_flickr: share/recipes/multi30k.sh with en de (the recipe is there).
#   share/recipes/multi30k-en-de.sh CORPUS_DIR [RUN_DIR] [EPOCHS]
exec "$(dirname "$0")/multi30k.sh" en de "$@"
