import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { A2aHealthIndicator } from '../../../libs/a2a/src/terminus.js';

/** `GET /health`: 200 when the task store and the event bus can serve, 503 with the reason when not. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly a2a: A2aHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.a2a.isHealthy()]);
  }
}
