set terminal pngcairo size 1000,420 font ",10"
set output "speech_cost.png"
# configs/experiments/speech/report.py: cost of a training step against utterance length
$w16 << EOD
925 475.7 71
1531 424.7 95
2810 338.1 156
6773 329.2 312
10176 225.1 486
EOD
$wwhole << EOD
925 962.2 70
1531 1372.0 93
2810 2309.9 152
6773 5908.8 305
10176 5740.3 475
EOD
set multiplot layout 1,2
set logscale x
set xlabel "frames per utterance"
set key top left
set grid
set ylabel "CPU µs per training frame"
plot $w16 using 1:2 with linespoints title "band 16", $wwhole using 1:2 with linespoints title "whole (tiled)"
set ylabel "peak resident memory, MiB"
plot $w16 using 1:3 with linespoints title "band 16", $wwhole using 1:3 with linespoints title "whole (tiled)"
unset multiplot
