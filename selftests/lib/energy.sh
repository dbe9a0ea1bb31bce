# SPDX-License-Identifier: GPL-2.0
# energy.sh - the tests' one reader of energy: a powercap zone's energy_uj.
#
# The bench, the demo and the guest tests read energy as slackctl does
# (userctl/energy.c) and as on hardware (intel-rapl): from a powercap zone,
# /sys/class/powercap/<zone>/energy_uj.  In the guest the zones are the
# emulated platform's (vfreq.ko): vplatform:0 "package-0" and one subzone
# per CPU, "cpuN"; their energy is modeled (Documentation/emulated-platform.rst).
#
#   sg_pc_zone NAME          the folder of the zone named NAME (its "name"
#                            file), e.g. cpu1 -> /sys/class/powercap/vplatform:0:1;
#                            status 1 when there is none
#   sg_energy_uj ZONE        the zone's counter now, uJ
#   sg_energy_delta ZONE A B the energy from reading A to reading B, uJ: a
#                            counter that went backwards wrapped once, at the
#                            zone's max_energy_range_uj, so B - A + max
#                            (readers must read at least once a wrap); prints
#                            nothing and fails when A or B is empty
# The shell's arithmetic is 64-bit: counters up to 2^63 uJ.

SG_POWERCAP=/sys/class/powercap

sg_pc_zone() {
	for _z in "$SG_POWERCAP"/*; do
		[ -r "$_z/name" ] && [ "$(cat "$_z/name")" = "$1" ] && { echo "$_z"; return 0; }
	done
	return 1
}

sg_energy_uj() { cat "$1/energy_uj" 2>/dev/null; }

sg_energy_delta() {
	[ -n "$2" ] && [ -n "$3" ] || return 1
	if [ "$3" -ge "$2" ]; then
		echo $(($3 - $2))
	else
		echo $(($3 - $2 + $(cat "$1/max_energy_range_uj")))
	fi
}
