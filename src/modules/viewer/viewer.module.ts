import { defineModule } from '../module';
import { ViewerResolver } from './viewer.resolver';

/** viewer: who the caller is. */
export const viewerModule = defineModule({
  name: 'viewer',
  resolvers: [ViewerResolver],
  create: () => ({ resolvers: [new ViewerResolver()] }),
});
