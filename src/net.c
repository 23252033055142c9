/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Network namespace: "none" leaves it empty (lo down); "loopback" brings lo up. */
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "sandbox.h"

int acs_net_loopback_up(acs_error *err)
{
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return acs_error_errno(err, -errno, "net", "socket");
        struct ifreq ifr = { 0 };
        strcpy(ifr.ifr_name, "lo");
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                return acs_error_errno(err, -errno, "net", "SIOCGIFFLAGS lo");
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                return acs_error_errno(err, -errno, "net", "bringing up lo");
        return 0;
}
