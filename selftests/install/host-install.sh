# SPDX-License-Identifier: GPL-2.0
# host-install.sh - make install lays out exactly the documented files under
# DESTDIR and PREFIX, and make uninstall removes them.
. "$SG_TOP/selftests/lib/ktap.sh"

D=$PWD/dest
want="etc/slackgov.conf
usr/lib/slackgov/slackgov-service
usr/lib/slackgov/slackgov.bpf.o
usr/lib/slackgov/util_policy.bpf.o
usr/lib/systemd/system/slackgov.service
usr/sbin/slackctl
usr/share/man/man8/slackctl.8"

ktap_plan 8
# an install with the default PREFIX first: the next one, with another
# PREFIX, must not reuse its unit
ktap_run_ok "make install DESTDIR=... (default PREFIX)" \
	make -s -C "$SG_TOP" install O="$SG_BUILD" DESTDIR="$PWD/dest0"
ktap_check 'grep -q "^ExecStart=/usr/local/lib/slackgov/slackgov-service " "$PWD/dest0/usr/local/lib/systemd/system/slackgov.service"' \
	"its unit points at /usr/local"
ktap_run_ok "make install DESTDIR=... PREFIX=/usr" \
	make -s -C "$SG_TOP" install O="$SG_BUILD" DESTDIR="$D" PREFIX=/usr
ktap_eq "$want" "$(cd "$D" && find . -type f | sed 's|^\./||' | sort)" \
	"exactly the documented files are installed"
ktap_check 'grep -q "^ExecStart=/usr/lib/slackgov/slackgov-service start /etc/slackgov.conf" "$D/usr/lib/systemd/system/slackgov.service"' \
	"the unit points at the installed service script and config (remade for the new PREFIX)"
ktap_check '"$D/usr/lib/slackgov/slackgov-service" check "$D/etc/slackgov.conf" </dev/null' \
	"the example config passes the service's check" 
echo "admin's edit" >> "$D/etc/slackgov.conf"
ktap_run_ok "make uninstall" make -s -C "$SG_TOP" uninstall O="$SG_BUILD" DESTDIR="$D" PREFIX=/usr
ktap_eq "etc/slackgov.conf" "$(cd "$D" && find . -type f | sed 's|^\./||' | sort)" \
	"uninstall removes everything but the administrator's edited config"
ktap_finished
