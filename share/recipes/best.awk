# The recipes' choice among settings measured on val: reads rows "SETTING... BLEU WORDS"
# (tab- or space-separated) and prints the chosen row.
#   awk -v cap=N -f best.awk table.tsv
# The row with the highest BLEU among those with WORDS <= cap; a tie goes to the earlier row.
# If no row is under the cap, the row with the fewest words (again the earlier on a tie).
# Without a cap (unset or empty) every row is under it. A row with fewer than 3 fields, or whose BLEU or WORDS
# is not a number, is an error (exit 1), as is an empty table.
function number(s) { return s ~ /^[0-9]+(\.[0-9]*)?$/ }
{
    if (NF < 3 || !number($(NF - 1)) || !number($NF)) {
        printf "best.awk: line %d is not \"SETTING... BLEU WORDS\": %s\n", NR, $0 > "/dev/stderr"
        bad = 1
        exit 1
    }
    bleu = $(NF - 1) + 0
    words = $NF + 0
    under = (cap == "" || words <= cap + 0)
    if (!seen || (under && (!best_under || bleu > best_bleu)) || (!under && !best_under && words < best_words)) {
        seen = 1
        best = $0
        best_bleu = bleu
        best_words = words
        best_under = under
    }
}
END {
    if (bad) exit 1
    if (!seen) { print "best.awk: no settings to choose from" > "/dev/stderr"; exit 1 }
    print best
}
