# SPDX-License-Identifier: GPL-2.0
# pareto.gp - the bench's Pareto plot of one workload: modeled energy per
# request against client p99, one point per governor and load (labelled with
# the load), each load's fixed-frequency frontier as a line (the static
# oracle is its cheapest point left of the SLO), the SLO as a vertical line.
#   gnuplot -e "data='pareto-W.dat'; out='x.png'; slo=US; wl='W'" pareto.gp
# data: "gov load mJ_per_req p99_us" (results.awk mode=pareto)
set terminal pngcairo size 1100,750 noenhanced
set output out
set title sprintf("workload %s: modeled energy per request against client p99", wl)
set xlabel "client p99 (us, log scale)"
set ylabel "modeled energy per request (mJ)"
set logscale x
set key outside right
set grid
govs = system("awk '$1 != \"frontier\" && $1 != \"fixed\" && NF && !s[$1]++ { printf \"%s \", $1 }' " . data)
if (slo > 0) set arrow from slo, graph 0 to slo, graph 1 nohead dt 2 lw 2 lc rgb "red"
if (slo > 0) set label sprintf("SLO %d us", slo) at slo, graph 0.04 left offset 0.5, 0 tc rgb "red"
plot data using (strcol(1) eq "frontier" ? $4 : NaN):3 with lines lw 1.5 lc rgb "gray30" title "fixed-f frontier per load", \
     data using (strcol(1) eq "fixed" ? $4 : NaN):3 with points pt 6 lc rgb "gray50" title "fixed frequencies", \
     for [i = 1:words(govs)] data using (strcol(1) eq word(govs, i) ? $4 : NaN):3 with points pt 7 ps 1.5 lc i title word(govs, i), \
     for [i = 1:words(govs)] data using (strcol(1) eq word(govs, i) ? $4 : NaN):3:(sprintf("%d%%", $2)) with labels offset 1.2, 0.6 font ",8" tc lt i notitle
