# SPDX-License-Identifier: GPL-2.0
# kmod.sh - module helpers shared by the guest tests (through ktap.sh) and
# the guest steps of the demo and the bench (through loadrun.sh).

# The syscall hooks the guest tests of the control loop load (slackctl load
# --hooks): under TCG slackctl load takes 15 s with fentry's 34 trampolines
# (unload 2.4 s) and 2 s with the tracepoints.  The hooks themselves are
# guest-hooks.sh's, which loads both; guest-feed, guest-fidelity, the e2e
# test, the bench and the demo keep slackctl's default.
SG_LOOP_HOOKS=tracepoint

# sg_rmmod NAME: remove a module if it is loaded, retrying for up to 10 s.
# The BPF side's references to slackgov drop asynchronously after an unpin
# (rmmod says EAGAIN for a moment, longer under a one-thread TCG guest), and
# vfreq stayed busy for seconds after a loaded governor test: one rmmod left
# the module loaded and the next test's insmod failed with EEXIST.
sg_rmmod() {
	_i=0
	while grep -q "^$1 " /proc/modules && [ $_i -lt 100 ]; do
		rmmod "$1" 2>/dev/null || sleep 0.1
		_i=$((_i + 1))
	done
	! grep -q "^$1 " /proc/modules
}
