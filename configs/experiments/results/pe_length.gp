# Written by configs/experiments/run_pe_experiment.sh: EWT dev accuracy by sentence length.
# Edit and rerun from this folder: gnuplot pe_length.gp
$acc << EOD
# bucket_index bucket none sinusoidal learned
0 1-10 87.40 87.39 87.37
1 11-20 86.79 86.93 87.21
2 21-40 86.32 85.61 86.39
3 41+ 85.85 84.18 85.75
EOD
set terminal pngcairo size 640,400 noenhanced font 'sans,10' background '#ffffff'
set output 'pe_length.png'
set title 'EWT dev accuracy by sentence length (trained on <= 20 words)'
set xlabel 'sentence length (words)'
set ylabel 'UPOS accuracy (%)'
set grid
set key bottom left
set xrange [-0.3:3.3]
set xtics ('1-10' 0, '11-20' 1, '21-40' 2, '41+' 3)
set arrow from 1.5, graph 0 to 1.5, graph 1 nohead dt 3 lc rgb '#888888'
set label 'longer than any training sentence' at 1.55, graph 0.95 tc rgb '#666666'
plot $acc using 1:3 with linespoints lw 2 pt 7 title 'none', \
     $acc using 1:4 with linespoints lw 2 pt 7 title 'sinusoidal', \
     $acc using 1:5 with linespoints lw 2 pt 7 title 'learned'
