# SPDX-License-Identifier: GPL-2.0
# demo.gp - plot the demo's time series: gnuplot -e "ts='x.csv'; out='y.png'" demo.gp
set datafile separator ","
set terminal pngcairo size 1200,900 noenhanced
set output out
set multiplot layout 3,1 title "slackgov demo (QEMU guest, emulated DVFS, modeled energy)"
set key outside right
set xlabel "time in run (s)"
set ylabel "CPU1 MHz"
set yrange [900:3100]
plot ts using (strcol(1) eq "slack" ? $2 : NaN):($9/1000) with steps title "slack", \
     ts using (strcol(1) eq "performance" ? $2 : NaN):($9/1000) with steps title "performance"
set ylabel "slack (%)"
set yrange [0:105]
plot ts using (strcol(1) eq "slack" ? $2 : NaN):($4/10) with lines title "slack gov: target slack", \
     ts using (strcol(1) eq "performance" ? $2 : NaN):($4/10) with lines title "performance: target slack"
set ylabel "modeled W (CPU1)"
set autoscale y
plot ts using (strcol(1) eq "slack" ? $2 : NaN):11 with lines title "slack", \
     ts using (strcol(1) eq "performance" ? $2 : NaN):11 with lines title "performance"
unset multiplot
