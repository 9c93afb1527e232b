import { defineModule } from '../module';
import { CorridorResolver, FxResolver } from './fx.resolver';
import { FxService } from './fx.service';

/** fx: FX v2 quotes (single use, owned by the caller) and the corridors' amount rules. */
export const fxModule = defineModule({
  name: 'fx',
  resolvers: [FxResolver, CorridorResolver],
  create: ({ db, upstream, clock, config }) => {
    const fx = new FxService(db.sql, upstream.gateway, clock, config.corridors, config.pricing);
    return { resolvers: [new FxResolver(fx), new CorridorResolver(fx)] };
  },
});
