# Written by configs/experiments/encoders/run.sh (report.py). Edit and rerun from this folder:
# gnuplot encoders.gp
$reach << EOD
# d full window4 cnn bilstm
1 100.00 100.00 100.00 100.00
2 100.00 100.00 100.00 100.00
3 100.00 100.00 55.00 100.00
4 100.00 100.00 22.50 100.00
5 100.00 100.00 35.00 100.00
6 100.00 100.00 17.50 100.00
7 100.00 100.00 32.50 100.00
8 100.00 100.00 27.50 100.00
9 100.00 20.00 25.00 100.00
10 100.00 22.50 22.50 100.00
11 100.00 20.00 20.00 100.00
12 100.00 30.00 25.00 100.00
13 100.00 27.50 35.00 100.00
14 100.00 25.00 42.50 100.00
15 100.00 12.50 22.50 100.00
16 100.00 32.50 22.50 100.00
17 100.00 25.00 25.00 100.00
18 100.00 25.00 35.00 100.00
19 100.00 25.00 35.00 100.00
20 100.00 25.00 12.50 100.00
21 100.00 22.50 22.50 100.00
22 100.00 25.00 30.00 100.00
23 100.00 25.00 37.50 100.00
24 100.00 20.00 20.00 100.00
25 100.00 30.00 27.50 100.00
26 100.00 22.50 17.50 100.00
27 100.00 25.00 20.00 100.00
28 100.00 30.00 25.00 100.00
29 100.00 22.50 22.50 100.00
30 100.00 20.00 22.50 100.00
31 100.00 30.00 12.50 100.00
32 100.00 32.50 25.00 100.00
EOD
$cost << EOD
# n full_train full_eval window4_train window4_eval cnn_train cnn_eval bilstm_train bilstm_eval
16 163.297 48.485 96.762 39.162 129.720 53.765 220.318 115.999
64 176.504 47.924 83.210 45.868 97.457 35.350 113.180 55.165
256 150.811 52.782 61.831 17.272 54.725 28.333 105.426 55.980
1024 354.937 168.606 80.620 32.370 74.466 64.316 107.260 58.044
4096 1371.366 596.481 75.005 31.175 91.801 35.777 145.094 73.002
EOD
set terminal pngcairo size 1100,420 noenhanced font 'sans,9' background '#ffffff'
set output 'encoders.png'
set multiplot layout 1,2
set grid
set title 'reach: probe accuracy by key distance d (chance 25%)'
set xlabel 'distance d (words)'
set ylabel 'accuracy (%)'
set yrange [0:105]
set xrange [0.5:32.5]
set key right center
set arrow 1 from 4.5, graph 0 to 4.5, graph 1 nohead dt 3 lc rgb '#888888'
set arrow 2 from 8.5, graph 0 to 8.5, graph 1 nohead dt 3 lc rgb '#888888'
set label 1 'cnn field' at 4.6, graph 0.05 tc rgb '#666666'
set label 2 '2 x window' at 8.6, graph 0.12 tc rgb '#666666'
plot $reach using 1:2 with linespoints lw 2 pt 7 ps 0.6 title 'full attention', \
     $reach using 1:3 with linespoints lw 2 pt 7 ps 0.6 title 'windowed attention (w=4)', \
     $reach using 1:4 with linespoints lw 2 pt 7 ps 0.6 title 'cnn', \
     $reach using 1:5 with linespoints lw 2 pt 7 ps 0.6 title 'bilstm'
unset arrow 1
unset arrow 2
unset label 1
unset label 2
set title 'cost: microseconds per token (solid: training step, dashed: evaluation)'
set xlabel 'sentence length n (words)'
set ylabel 'us per token'
set logscale xy
set autoscale y
set xrange [12.307692307692307:5324.8]
set key top left
plot $cost using 1:2 with linespoints lw 2 pt 7 lc 1 title 'full attention', $cost using 1:3 with linespoints lw 1 dt 2 pt 6 lc 1 notitle, \
     $cost using 1:4 with linespoints lw 2 pt 7 lc 2 title 'windowed attention (w=4)', $cost using 1:5 with linespoints lw 1 dt 2 pt 6 lc 2 notitle, \
     $cost using 1:6 with linespoints lw 2 pt 7 lc 3 title 'cnn', $cost using 1:7 with linespoints lw 1 dt 2 pt 6 lc 3 notitle, \
     $cost using 1:8 with linespoints lw 2 pt 7 lc 4 title 'bilstm', $cost using 1:9 with linespoints lw 1 dt 2 pt 6 lc 4 notitle
unset multiplot
