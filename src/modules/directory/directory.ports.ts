import type { DirectoryService } from './directory.service';

/** The alias directory's look-up (DirectoryService.resolveAlias), provided as `aliases`: e.g. a PIX key checked before it is saved. */
export type AliasLookup = DirectoryService['resolveAlias'];
