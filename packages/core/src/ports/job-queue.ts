export interface Job<T> {
  id: string;
  data: T;
  /** 1 for the first attempt. */
  attempt: number;
}

export type JobHandler<T> = (job: Job<T>) => Promise<void>;

export interface Consumer {
  /** Stops taking jobs and waits for the ones in hand to finish or be handed back. */
  close(): Promise<void>;
}

export interface ConsumeOptions {
  /**
   * While this says false the consumer takes no new job (those in hand run on): an instance cut off from a store its
   * handler needs leaves the jobs to the instances that can answer them, rather than taking each, failing it and
   * sending it back with a longer backoff. Default: always true.
   */
  takingJobs?: () => boolean;
}

export interface EnqueueOptions {
  /**
   * The job is probably stored already (a copy of a delivery whose claim another instance holds): a queue whose add
   * costs much more than a lookup may look the id up first and add only when it is missing.
   */
  probablyStored?: boolean;
}

/**
 * A durable queue between the ack and the answer. A handler that throws is retried with exponential backoff and
 * jitter up to the queue's attempt limit, unless it threw a PermanentSendError: that job ends at once. One that threw
 * because a store is away (`isStoreAway`) is retried past the limit, at the last attempt's backoff, until the store is
 * back: an outage longer than the attempts' backoff must not lose the job. A consumer that dies mid-job has its jobs
 * picked up by another consumer.
 */
export interface JobQueue<T> {
  /** Resolves once the job is stored. A job id already known to the queue is not added twice. */
  enqueue(id: string, data: T, options?: EnqueueOptions): Promise<void>;
  consume(handler: JobHandler<T>, options?: ConsumeOptions): Consumer;
  /** Jobs waiting, delayed for a retry, or running. */
  depth(): Promise<number>;
}
