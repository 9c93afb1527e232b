import { defineModule } from '../module';
import { FxResolver } from './fx.resolver';
import { FxService } from './fx.service';

/** fx: FX v2 quotes (single use, owned by the caller) and the corridors' amount rules. */
export const fxModule = defineModule({
  name: 'fx',
  resolvers: [FxResolver],
  create: ({ db, upstream, clock, config }) => ({
    resolvers: [new FxResolver(new FxService(db.sql, upstream.gateway, clock, config.corridors))],
  }),
});
