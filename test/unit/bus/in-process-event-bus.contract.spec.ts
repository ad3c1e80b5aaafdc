import { InProcessEventBus } from '../../../libs/a2a/src/bus/in-process-event-bus.js';
import { describeEventBusContract } from './event-bus.contract.js';

describeEventBusContract('InProcessEventBus', () => new InProcessEventBus());
