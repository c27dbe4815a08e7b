"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FairSlots = void 0;
class FairSlots {
    total;
    perKey;
    inUse = 0;
    held = new Map();
    queues = new Map();
    constructor(total, perKey) {
        this.total = total;
        this.perKey = perKey;
        if (!(total >= 1 && perKey >= 1))
            throw new Error('FairSlots needs at least one slot');
    }
    used(key) {
        return key === undefined ? this.inUse : (this.held.get(key) ?? 0);
    }
    waiting(key) {
        if (key !== undefined)
            return this.queues.get(key)?.length ?? 0;
        let count = 0;
        for (const queue of this.queues.values())
            count += queue.length;
        return count;
    }
    acquire(key, signal) {
        if (signal.aborted)
            return Promise.reject(signal.reason);
        if (this.inUse < this.total && this.used(key) < this.perKey)
            return Promise.resolve(this.take(key));
        return new Promise((resolve, reject) => {
            const waiter = {
                grant: () => {
                    signal.removeEventListener('abort', onAbort);
                    resolve(this.take(key));
                },
            };
            const onAbort = () => {
                const queue = this.queues.get(key);
                const at = queue?.indexOf(waiter) ?? -1;
                if (queue && at >= 0) {
                    queue.splice(at, 1);
                    if (queue.length === 0)
                        this.queues.delete(key);
                }
                reject(signal.reason);
            };
            signal.addEventListener('abort', onAbort, { once: true });
            const queue = this.queues.get(key);
            if (queue)
                queue.push(waiter);
            else
                this.queues.set(key, [waiter]);
        });
    }
    take(key) {
        this.inUse += 1;
        this.held.set(key, this.used(key) + 1);
        let given = false;
        return () => {
            if (given)
                return;
            given = true;
            this.inUse -= 1;
            const left = this.used(key) - 1;
            if (left > 0)
                this.held.set(key, left);
            else
                this.held.delete(key);
            this.grantWaiting();
        };
    }
    grantWaiting() {
        while (this.inUse < this.total) {
            let next;
            for (const key of this.queues.keys()) {
                if (this.used(key) < this.perKey) {
                    next = key;
                    break;
                }
            }
            if (next === undefined)
                return;
            const queue = this.queues.get(next);
            const waiter = queue.shift();
            this.queues.delete(next);
            if (queue.length > 0)
                this.queues.set(next, queue);
            waiter.grant();
        }
    }
}
exports.FairSlots = FairSlots;
//# sourceMappingURL=fair-slots.js.map