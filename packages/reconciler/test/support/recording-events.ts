import type { EventRecorder, EventTarget, EventType } from '../../src/kube/events.js';

export interface RecordedEvent {
  /** Kind/name of the object the event is about. */
  target: string;
  type: EventType;
  reason: string;
  message: string;
}

/** The Events a reconcile records, in order. */
export class RecordingEvents implements Pick<EventRecorder, 'record'> {
  readonly recorded: RecordedEvent[] = [];

  /** The events as `Type Reason`: what a test compares. */
  get reasons(): string[] {
    return this.recorded.map(({ type, reason }) => `${type} ${reason}`);
  }

  record(target: EventTarget, type: EventType, reason: string, message: string): Promise<void> {
    this.recorded.push({ target: `${target.kind}/${target.metadata.name ?? ''}`, type, reason, message });
    return Promise.resolve();
  }
}
