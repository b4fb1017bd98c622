# MultiPL-E (eval_adb.py): gnatchop splits the file ($0) into its units, gnatmake builds Main with its flags
# (-gnata: assertions on), then ./main runs; exit 0 passes. The units' sources are gone once compiled (the run sees
# the binary alone).
mkdir units && gnatchop -q -w "$0" units &&
    (cd units && gnatmake -q -gnatW8 main.adb -o ../main -g -j0 -gnata -gnateE -bargs -Es)
built=$?
rm -rf units
exit $built
