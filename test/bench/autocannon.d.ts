/** The part of autocannon's API the load generator uses (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
      amount?: number;
      requests?: { method?: string; setupRequest?: (req: any, context: any) => any }[];
    }
    interface Result {
      duration: number;
      '2xx': number;
      non2xx: number;
      errors: number;
      timeouts: number;
      requests: { total: number; sent: number; average: number };
      latency: { p50: number; p99: number; mean: number };
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
