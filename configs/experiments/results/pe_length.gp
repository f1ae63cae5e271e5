# Written by configs/experiments/run_pe_experiment.sh (pe_report.py, pe_figure.py). Edit and
# rerun from this folder: gnuplot pe_length.gp
$ewt << EOD
# bucket_index bucket none sinusoidal learned rope alibi floater relative
0 1-10 87.40 87.39 87.37 87.73 87.60 87.37 87.49
1 11-20 86.79 86.93 87.21 87.24 87.24 86.85 86.84
2 21-40 86.32 85.61 86.39 86.75 86.52 86.10 86.38
3 41+ 85.85 84.18 85.75 86.22 86.54 74.15 85.75
EOD
$endsS << EOD
# bucket_index bucket none sinusoidal learned rope alibi floater relative
0 8-20 0.00 100.00 100.00 81.22 0.00 100.00 0.00
1 21-32 0.00 99.34 100.00 58.64 0.00 96.28 0.00
2 33-48 0.00 99.61 96.78 4.64 0.00 53.38 0.00
3 49-64 0.00 99.64 82.67 0.00 0.00 34.39 0.00
EOD
$endsE << EOD
# bucket_index bucket none sinusoidal learned rope alibi floater relative
0 8-20 0.00 100.00 98.39 99.42 0.00 99.88 0.00
1 21-32 0.00 6.91 25.80 98.40 0.00 17.15 0.00
2 33-48 0.00 3.22 0.39 29.87 0.00 0.00 0.00
3 49-64 0.00 5.42 0.00 25.00 0.00 0.00 0.00
EOD
set terminal pngcairo size 1260,400 noenhanced font 'sans,9' background '#ffffff'
set output 'pe_length.png'
set multiplot layout 1,3
set grid
set ylabel 'accuracy (%)'
set xlabel 'sentence length (words)'
set xrange [-0.3:3.3]
set xtics ('1-10' 0, '11-20' 1, '21-40' 2, '41+' 3)
set key bottom left
set arrow 1 from 1.5, graph 0 to 1.5, graph 1 nohead dt 3 lc rgb '#888888'
set title 'EWT UPOS dev (trained on <= 20 words)'
plot $ewt using 1:3 with linespoints lw 2 pt 7 dt 1 title 'none', \
     $ewt using 1:4 with linespoints lw 2 pt 5 dt 1 title 'sinusoidal', \
     $ewt using 1:5 with linespoints lw 2 pt 9 dt 1 title 'learned', \
     $ewt using 1:6 with linespoints lw 2 pt 11 dt 1 title 'rope', \
     $ewt using 1:7 with linespoints lw 2 pt 13 dt 2 title 'alibi', \
     $ewt using 1:8 with linespoints lw 2 pt 4 dt 2 title 'floater', \
     $ewt using 1:9 with linespoints lw 2 pt 6 dt 2 title 'relative (clip 8)'
set xtics ('8-20' 0, '21-32' 1, '33-48' 2, '49-64' 3)
set xrange [-0.3:3.3]
set yrange [-15:105]
set ytics 0, 20, 100
set arrow 1 from 0.5, graph 0 to 0.5, graph 1 nohead dt 3 lc rgb '#888888'
set key off
set title 'ends task: first 4 words (S, from the start)'
set label 1 'at 0 at every length: none, alibi, relative (clip 8)' at graph 0.03, first -8 front
plot $endsS using 1:3 with linespoints lw 2 pt 7 dt 1 title 'none', \
     $endsS using 1:4 with linespoints lw 2 pt 5 dt 1 title 'sinusoidal', \
     $endsS using 1:5 with linespoints lw 2 pt 9 dt 1 title 'learned', \
     $endsS using 1:6 with linespoints lw 2 pt 11 dt 1 title 'rope', \
     $endsS using 1:7 with linespoints lw 2 pt 13 dt 2 title 'alibi', \
     $endsS using 1:8 with linespoints lw 2 pt 4 dt 2 title 'floater', \
     $endsS using 1:9 with linespoints lw 2 pt 6 dt 2 title 'relative (clip 8)'
set title 'ends task: last 4 words (E, from the end)'
set label 1 'at 0 at every length: none, alibi, relative (clip 8)' at graph 0.03, first -8 front
plot $endsE using 1:3 with linespoints lw 2 pt 7 dt 1 title 'none', \
     $endsE using 1:4 with linespoints lw 2 pt 5 dt 1 title 'sinusoidal', \
     $endsE using 1:5 with linespoints lw 2 pt 9 dt 1 title 'learned', \
     $endsE using 1:6 with linespoints lw 2 pt 11 dt 1 title 'rope', \
     $endsE using 1:7 with linespoints lw 2 pt 13 dt 2 title 'alibi', \
     $endsE using 1:8 with linespoints lw 2 pt 4 dt 2 title 'floater', \
     $endsE using 1:9 with linespoints lw 2 pt 6 dt 2 title 'relative (clip 8)'
unset multiplot
