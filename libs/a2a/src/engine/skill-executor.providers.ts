import type { Provider } from '@nestjs/common';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { FollowUpStarter } from './follow-up.starter.js';
import { LeaseKeeper, leaseKeeperOf } from './lease.keeper.js';
import { LeaseReaper } from './lease.reaper.js';
import { RunCommitter } from './run.committer.js';
import { RunRegistry } from './run.registry.js';
import { SkillAdmission } from './skill.admission.js';
import { SkillExecutor } from './skill.executor.js';
import { SkillFailover } from './skill.failover.js';
import { SkillRunner } from './skill.runner.js';
import { SkillStarter } from './skill.starter.js';
import { TaskWriter } from './task.writer.js';

/**
 * The {@link SkillExecutor} and its parts. Leases, their reaper and the re-runs of restartable skills exist only with
 * a store replicas share (one with `leases`): without it, their providers are undefined.
 */
export const SKILL_EXECUTOR_PROVIDERS: Provider[] = [
  SkillExecutor,
  SkillAdmission,
  SkillStarter,
  FollowUpStarter,
  SkillRunner,
  RunCommitter,
  RunRegistry,
  { provide: LeaseKeeper, useFactory: leaseKeeperOf, inject: [A2A_TASK_STORE, A2A_MODULE_OPTIONS] },
  {
    provide: SkillFailover,
    useFactory: (
      leases: LeaseKeeper | undefined,
      writer: TaskWriter,
      runs: RunRegistry,
      runner: SkillRunner,
      committer: RunCommitter,
      options: A2aModuleOptions,
    ) =>
      leases &&
      new SkillFailover(writer, runs, runner, committer, options.limits?.maxHistoryLength ?? DEFAULT_MAX_HISTORY),
    inject: [LeaseKeeper, TaskWriter, RunRegistry, SkillRunner, RunCommitter, A2A_MODULE_OPTIONS],
  },
  {
    provide: LeaseReaper,
    useFactory: (
      failover: SkillFailover | undefined,
      store: TaskStore,
      writer: TaskWriter,
      skills: SkillRegistry,
      runs: RunRegistry,
    ) => failover && new LeaseReaper(store, writer, skills, runs, failover),
    inject: [SkillFailover, A2A_TASK_STORE, TaskWriter, SkillRegistry, RunRegistry],
  },
];
