/*
 * Counting and pricing one rank's schedule. Under the cost model a
 * rank is 1-ported and full duplex: a round costs one start-up alpha per
 * message of the busier direction (one, for the usual round of one send and
 * one receive), beta per byte of the larger of what it sends and receives, then
 * gamma per byte combined and rho per byte copied in its local steps, at the
 * band of its largest message (model.bands). A schedule's cost is the
 * slowest rank's sum over its rounds.
 */
#include "sched/sched.h"

void cs_sched_stats_get(const cs_sched *s, const cs_model *model, cs_sched_stats *out)
{
    *out = (cs_sched_stats){0};
    for (int r = 0; r < s->nrounds; r++) {
        size_t sent = 0, received = 0, reduced = 0, copied = 0, largest = 0;
        int sends = 0, recvs = 0;
        for (size_t i = s->round_start[r]; i < cs_sched_round_end(s, r); i++) {
            const cs_step *st = &s->steps[i];
            if (st->kind == CS_STEP_SEND || st->kind == CS_STEP_RECV)
                largest = st->len > largest ? st->len : largest;
            switch (st->kind) {
            case CS_STEP_SEND:
                sent += st->len;
                sends++;
                break;
            case CS_STEP_RECV:
                received += st->len;
                recvs++;
                break;
            case CS_STEP_REDUCE:
            case CS_STEP_UNREDUCE: reduced += st->len; break;
            default: copied += st->len; break;
            }
        }
        out->rounds += sends > 0 || recvs > 0;
        out->sent_bytes += sent;
        out->reduced_bytes += reduced;
        out->copied_bytes += copied;
        const cs_model sized = cs_model_sized(model, (double)largest); /* the round's band (model.bands) */
        out->cost += cs_sched_round_cost(&sized, sends, recvs, sent, received, reduced, copied);
    }
}
