set terminal pngcairo size 1000,420 font ",10"
set output "speech_windows.png"
# configs/experiments/speech/report.py: frame accuracy against the attention window
$phoneme << EOD
0 47.10 39.61 "2"
1 46.58 39.82 "4"
2 41.90 37.06 "8"
3 35.82 32.83 "16"
4 34.01 30.56 "32"
5 33.67 30.23 "64"
6 34.24 30.28 "128"
7 35.86 30.75 "whole"
EOD
$upos << EOD
0 27.81 28.51 "2"
1 28.21 28.90 "4"
2 28.65 28.82 "8"
3 28.35 28.63 "16"
4 27.31 27.27 "32"
5 24.84 25.01 "64"
6 22.86 23.10 "128"
7 28.27 28.79 "whole"
EOD
set multiplot layout 1,2
set xlabel "window (frames each side)"
set ylabel "frame accuracy, %"
set grid
set key bottom right
set title "phoneme"
plot $phoneme using 1:2:xtic(4) with linespoints title "dev", $phoneme using 1:3 with linespoints title "held-out voice"
set title "upos"
plot $upos using 1:2:xtic(4) with linespoints title "dev", $upos using 1:3 with linespoints title "held-out voice"
unset multiplot
