import {
  Module,
  UseFilters,
  UseGuards,
  UseInterceptors,
  type DynamicModule,
  type Provider,
  type Type,
} from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryModule } from '@nestjs/core';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  DEFAULT_EXTRAS,
  A2A_MODULE_EXTRAS,
  A2A_MODULE_OPTIONS,
  OPTIONS_TYPE,
} from './a2a-module-definition.js';
import type { A2aModuleExtras, A2aModuleOptions } from './a2a-module.options.js';
import { checkA2aExtras, withCheckedOptions } from './a2a-options.check.js';
import { A2A_BINDING_MOUNTS, bindingMounts } from './binding-mounts.js';
import { DirectHttpDispatcher } from './bindings/http/direct/direct-http.dispatcher.js';
import { PreRoutingErrorHandler } from './bindings/http/pre-routing-error.handler.js';
import { UnmatchedRouteHandler } from './bindings/http/unmatched-route.handler.js';
import { A2A_HTTP_BINDING_ROUTES, type HttpBindingPlugin } from './bindings/http/http-binding.js';
import { jsonRpcBinding } from './bindings/jsonrpc/jsonrpc.binding.js';
import { restBinding } from './bindings/rest/rest.binding.js';
import { A2A_EVENT_BUS } from './bus/event-bus.js';
import { InProcessEventBus } from './bus/in-process-event-bus.js';
import { AgentCardRoute } from './bindings/http/agent-card.route.js';
import { JwksRoute } from './bindings/http/jwks.route.js';
import { AgentCardSigner } from './card/signing/agent-card.signer.js';
import { A2A_OPERATIONS_HOST, createA2aOperationsHost } from './bindings/a2a-operations.host.js';
import { A2aHttpPipeline } from './bindings/http/http-pipeline.js';
import { A2aHttpRoutes } from './bindings/http/http-routes.js';
import { UnexpectedErrorReporter } from './errors/unexpected-error.reporter.js';
import { A2aExceptionFilters } from './bindings/http/a2a-exception-filters.js';
import { AgentCardService } from './card/agent-card.service.js';
import { A2aEngine } from './engine/a2a.engine.js';
import { SKILL_EXECUTOR_PROVIDERS } from './engine/skill-executor.providers.js';
import { TaskStreams } from './engine/task.streams.js';
import { TaskWriter } from './engine/task.writer.js';
import { A2aPushConfigs } from './push/push-configs.service.js';
import { A2aPushDispatcher } from './push/push.dispatcher.js';
import { SkillExplorer } from './skills/skill.explorer.js';
import { SkillRegistry } from './skills/skill.registry.js';
import { A2A_SKILL_ROUTER } from './skills/skill.router.js';
import { InMemoryTaskStore } from './store/in-memory-task.store.js';
import { A2A_TASK_STORE } from './store/task.store.js';
import { DEFAULT_MAX_HISTORY } from './a2a.constants.js';
import { CallContextFactory } from './bindings/call-context.factory.js';
import { A2aAuthGuard } from './security/a2a-auth.guard.js';
import { A2aSecurityPolicy } from './security/a2a-security.policy.js';
import { ExtendedAgentCardService } from './card/extended-agent-card.service.js';
import { A2aTaskAuthorizations } from './security/task-authorizations.js';
import { A2aExtensionMetadataAccessor } from './extensions/a2a-extension-metadata.accessor.js';
import { ExtensionExplorer } from './extensions/extension.explorer.js';
import { ExtensionRegistry } from './extensions/extension.registry.js';
import { A2aObservability } from './observability/a2a-observability.js';
import { A2A_AUDIT_SINK } from './audit/a2a-audit.sink.js';
import { A2aAuditTrail, auditSinkOf } from './audit/audit.trail.js';
import { COMPAT_PROVIDERS } from './compat/compat.providers.js';
import { A2A_INSPECTOR_HOST, createInspectorPageHost } from './inspector/inspector-page.host.js';
import { InspectorRoutes } from './inspector/inspector.routes.js';

/**
 * Turns the app's `@AgentSkill` classes into an A2A agent: the AgentCard at `/.well-known/agent-card.json`, and the
 * JSON-RPC and HTTP+JSON bindings over one engine.
 *
 * ```ts
 * A2aModule.forRoot({ card: { name: 'Echo', description: 'Echoes text' } })
 * ```
 */
@Module({})
export class A2aModule extends ConfigurableModuleClass {
  /** The module with options known at import time. */
  static override forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    checkA2aExtras(options, false);
    return withA2aParts(super.forRoot(options), options);
  }

  /**
   * The module with options from a factory (e.g. a ConfigService); the options that shape the module (`jsonRpc`,
   * `rest`, `bindings`, `router`, `guards`, `interceptors`, `filters`, `isGlobal`) sit beside `useFactory`.
   */
  static override forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    checkA2aExtras(options, true);
    return withA2aParts(super.forRootAsync(options), options);
  }
}

function withA2aParts(definition: DynamicModule, extras: A2aModuleExtras): DynamicModule {
  const mounts = bindingMounts({
    jsonRpc: extras.jsonRpc ?? DEFAULT_EXTRAS.jsonRpc,
    rest: extras.rest ?? DEFAULT_EXTRAS.rest,
  });
  const controllers: Type[] = [];
  const operationsHost = createA2aOperationsHost(extras);
  const inspectorHost = createInspectorPageHost(extras);
  // JSON-RPC and HTTP+JSON are plugins like gRPC's, on unless their option is `false`.
  const httpBindings: HttpBindingPlugin[] = [];
  if (mounts.jsonRpc !== undefined) httpBindings.push(jsonRpcBinding());
  if (mounts.rest !== undefined) httpBindings.push(restBinding());
  const plugins = [...httpBindings, ...(extras.bindings ?? [])];
  for (const plugin of plugins) {
    // The module's guards and interceptors reach the plugins' handlers (gRPC) as they reach the HTTP operations.
    for (const controller of plugin.controllers) {
      UseGuards(A2aAuthGuard, ...(extras.guards ?? []))(controller);
      if (extras.interceptors?.length) UseInterceptors(...extras.interceptors)(controller);
      // After the binding's own filters in Nest's order (the last declared is tried first): protocol errors stay its.
      if (extras.filters?.length)
        UseFilters(
          ...extras.filters,
          ...((Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, controller) as []) ?? []),
        )(controller);
      controllers.push(controller);
    }
  }
  const providers: Provider[] = [
    ...withCheckedOptions(definition.providers ?? []),
    SkillExplorer,
    SkillRegistry,
    A2aExtensionMetadataAccessor,
    ExtensionExplorer,
    ExtensionRegistry,
    AgentCardService,
    AgentCardRoute,
    AgentCardSigner,
    JwksRoute,
    A2aEngine,
    ...SKILL_EXECUTOR_PROVIDERS,
    TaskWriter,
    TaskStreams,
    A2aPushConfigs,
    A2aPushDispatcher,
    A2aSecurityPolicy,
    ExtendedAgentCardService,
    A2aTaskAuthorizations,
    A2aAuthGuard,
    CallContextFactory,
    A2aObservability,
    A2aAuditTrail,
    {
      provide: A2A_AUDIT_SINK,
      useFactory: (options: A2aModuleOptions) => auditSinkOf(options.audit),
      inject: [A2A_MODULE_OPTIONS],
    },
    { provide: A2A_BINDING_MOUNTS, useValue: mounts },
    ...plugins.flatMap((plugin) => plugin.providers),
    {
      provide: A2A_MODULE_EXTRAS,
      useValue: { guards: extras.guards ?? [], interceptors: extras.interceptors ?? [], filters: extras.filters ?? [] },
    },
    A2aExceptionFilters,
    operationsHost,
    { provide: A2A_OPERATIONS_HOST, useExisting: operationsHost },
    UnexpectedErrorReporter,
    A2aHttpPipeline,
    PreRoutingErrorHandler,
    UnmatchedRouteHandler,
    {
      provide: A2A_HTTP_BINDING_ROUTES,
      useFactory: (...routes: unknown[]) => routes,
      // The inspector page's routes (option `inspector`) after the bindings', none while it is off.
      inject: [...httpBindings.map((binding) => binding.routes), InspectorRoutes],
    },
    inspectorHost,
    { provide: A2A_INSPECTOR_HOST, useExisting: inspectorHost },
    InspectorRoutes,
    A2aHttpRoutes,
    DirectHttpDispatcher,
    ...COMPAT_PROVIDERS,
    {
      provide: A2A_TASK_STORE,
      useFactory: (options: A2aModuleOptions) =>
        options.taskStore ??
        new InMemoryTaskStore({
          maxHistoryLength: options.limits?.maxHistoryLength ?? DEFAULT_MAX_HISTORY,
          maxTasks: options.limits?.maxTasks,
          maxTasksPerPrincipal: options.limits?.maxTasksPerPrincipal,
          terminalTaskTtlMs: options.limits?.terminalTaskTtlMs,
        }),
      inject: [A2A_MODULE_OPTIONS],
    },
    {
      provide: A2A_EVENT_BUS,
      useFactory: (options: A2aModuleOptions) => options.eventBus ?? new InProcessEventBus(),
      inject: [A2A_MODULE_OPTIONS],
    },
  ];
  if (extras.router) providers.push({ provide: A2A_SKILL_ROUTER, useClass: extras.router });
  return {
    ...definition,
    imports: [...(definition.imports ?? []), DiscoveryModule],
    controllers,
    providers,
    exports: [
      A2aEngine,
      AgentCardService,
      A2aTaskAuthorizations,
      A2aPushDispatcher,
      A2A_TASK_STORE,
      A2A_EVENT_BUS,
      A2A_AUDIT_SINK,
    ],
  };
}
