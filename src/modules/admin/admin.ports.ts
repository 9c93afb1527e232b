/** What the admin module offers other modules: its service (provided as `admin`) and createAgent's GraphQL types (the platform module's legacy alias). */
export type { AdminService } from './admin.service';
export { CreateAgentInput, CreatedAgent } from './admin.types';
