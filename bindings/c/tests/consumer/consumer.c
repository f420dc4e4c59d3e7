/* Links libidelink through find_package(idelink) and makes one engine-level round trip in
 * plain C (round_trip.h). Exit 0 on success. */
#include "round_trip.h"

#include <stdio.h>

int main(void) {
    RoundTrip r = round_trip("/p", "/p/main.c", "c");
    if (!r.started) fprintf(stderr, "consumer: %s\n", idelink_last_error_message());
    printf("consumer: refused=%d misuse=%d snapshots=%d\n", r.refused, r.misuse, r.snapshots);
    return round_trip_passed(r) ? 0 : 1;
}
