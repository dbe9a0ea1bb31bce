# SPDX-License-Identifier: GPL-2.0
# demo.gp - plot the demo: gnuplot -e "ts='x.csv'; st='steps.csv'; out='y.png'; slo=US" demo.gp
# Top: the client's p99 per load step, per governor, with the SLO as a line;
# below: CPU 1's mean frequency and modeled power a second (timeseries.csv).
set datafile separator ","
set terminal pngcairo size 1200,1100 noenhanced
set output out
set multiplot layout 3,1 title "slackgov demo: performance, schedutil and slack with an SLO (QEMU guest, emulated DVFS, modeled energy)"
set key outside right
govs = system("awk -F, 'NR > 1 && !s[$1]++ { printf \"%s \", $1 }' " . st)
set xlabel "load step (share of capacity, req/s)"
set ylabel "p99 latency (us, log)"
set logscale y
set xrange [0.5:*]
tics = system("awk -F, 'NR > 1 && !s[$2]++ { printf \"%s\\\"%s: %s%%%% %s\\\" %s\", sep, $2, $16, $3, $2; sep = \", \" }' " . st)
eval "set xtics (" . tics . ")"
set arrow 1 from graph 0, first slo to graph 1, first slo nohead dt 2 lw 2 lc rgb "red"
set label 1 sprintf("SLO %d us", slo) at graph 0.01, first slo offset 0, 0.7 tc rgb "red"
plot for [i = 1:words(govs)] st using (strcol(1) eq word(govs, i) ? $2 : NaN):6 \
	with linespoints lw 2 pt 7 lc i title word(govs, i) . ": client p99"
unset arrow 1
unset label 1
unset logscale y
set xrange [*:*]
set xtics auto
set xlabel "time in the governor's run (s)"
set ylabel "CPU 1 MHz"
set yrange [900:3100]
plot for [i = 1:words(govs)] ts using (strcol(1) eq word(govs, i) ? $2 : NaN):8 with steps lc i title word(govs, i)
set ylabel "modeled W (CPU 1)"
set autoscale y
plot for [i = 1:words(govs)] ts using (strcol(1) eq word(govs, i) && $9 >= 0 ? $2 : NaN):9 with lines lc i title word(govs, i)
unset multiplot
