/**
 * The reference point: an `@a2a-js/sdk` server (DefaultRequestHandler + InMemoryTaskStore, its express handlers and
 * its gRPC service: the SDK's documented setup) with the subset of the conformance agent the bench drives: `echo <text>` and `stream <n>`.
 */
import './memory-probe.js';
import { InMemoryTaskStore } from '@a2a-js/sdk/server';
import { serveSdkBenchAgent } from './sdk-bench.agent.js';
import { SERVER_LAYOUTS } from './server-layouts.js';

serveSdkBenchAgent('SDK bench agent', SERVER_LAYOUTS.sdk, new InMemoryTaskStore());
