// The exchange's TypeScript SDK (from npm) against a local exchange: orders placed and cancelled, money moved,
// queries, and subscriptions over the WebSocket, each call's outcome printed as one JSON object.
//
// Usage (run from the folder whose node_modules holds the SDK, with the resolve hook):
//   node --experimental-websocket --import ./resolve_hook.mjs drive_ts.mjs BASE_URL testnet|mainnet
// Output: {"<call>": {"ok": true, "value": ...} | {"ok": false, "error": "..."}} (as tests/compat/sdk_harness.py).
import {
  ExchangeClient,
  HttpTransport,
  InfoClient,
  SubscriptionClient,
  WebSocketTransport,
} from "@hotstuff-labs/ts-sdk";
import { createWalletClient, http } from "viem";
import { mainnet } from "viem/chains";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const [baseUrl, network] = process.argv.slice(2);
const isTestnet = network === "testnet";
const wsUrl = `${baseUrl.replace("http://", "ws://")}/ws/`;
const HOUR_MS = 3_600_000;
const DEADLINE_MS = 5_000;
const results = {};

async function call(name, fn) {
  try {
    const value = await fn();
    results[name] = { ok: true, value: value ?? null };
    return value;
  } catch (error) {
    results[name] = { ok: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
    return null;
  }
}

const note = (name, value) => (results[name] = { ok: true, value });

async function waitFor(condition) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

function wallet() {
  const account = privateKeyToAccount(generatePrivateKey());
  return { account, client: createWalletClient({ account, chain: mainnet, transport: http() }) };
}

const server = { [network]: { api: `${baseUrl}/`, rpc: `${baseUrl}/` } };
const httpTransport = new HttpTransport({ isTestnet, server });
const wsTransport = new WebSocketTransport({ isTestnet, server: { [network]: wsUrl } });
// this SDK's WebSocket transport serves subscriptions only ("Use specific WebSocket methods"): requests go by HTTP
const info = new InfoClient({ transport: httpTransport });
const me = wallet();
const other = wallet();
const trader = new ExchangeClient({ transport: httpTransport, wallet: me.client });
const counterparty = new ExchangeClient({ transport: httpTransport, wallet: other.client });
const user = me.account.address;
note("address", user);

const unit = (side, price, size, extra = {}) => ({
  instrumentId: 1,
  side,
  positionSide: "BOTH",
  price,
  size,
  tif: "GTC",
  ro: false,
  po: false,
  cloid: `ts-${Math.random().toString(16).slice(2, 14)}`,
  ...extra,
});
const expiresAfter = () => Date.now() + HOUR_MS;
const openIds = async () => (await info.openOrders({ user })).data.map((o) => o.order_id);

async function trading() {
  await call("placeOrder.rest", () => trader.placeOrder({ orders: [unit("b", "90000", "0.01")], expiresAfter: expiresAfter() }));
  const [oid] = await openIds();
  note("placeOrder.rest.open", await openIds());
  await call("cancelByOid", () => trader.cancelByOid({ cancels: [{ oid, instrumentId: 1 }], expiresAfter: expiresAfter() }));
  note("cancelByOid.open", await openIds());
  const cloid = "ts-compat-cloid-1";
  await call("placeOrder.cloid", () =>
    trader.placeOrder({ orders: [unit("b", "90001", "0.01", { cloid })], expiresAfter: expiresAfter() }),
  );
  await call("cancelByCloid", () =>
    trader.cancelByCloid({ cancels: [{ cloid, instrumentId: 1 }], expiresAfter: expiresAfter() }),
  );
  note("cancelByCloid.open", await openIds());
  await call("placeOrder.two", () =>
    trader.placeOrder({ orders: [unit("b", "89000", "0.01"), unit("b", "88000", "0.01")], expiresAfter: expiresAfter() }),
  );
  await call("cancelAll", () => trader.cancelAll({ expiresAfter: expiresAfter() }));
  note("cancelAll.open", await openIds());
  await call("placeOrder.maker", () =>
    counterparty.placeOrder({ orders: [unit("s", "100000", "0.01")], expiresAfter: expiresAfter() }),
  );
  await call("placeOrder.taker", () =>
    trader.placeOrder({ orders: [unit("b", "100000", "0.01", { tif: "IOC" })], expiresAfter: expiresAfter() }),
  );
  await call("placeOrder.refused", () =>
    trader.placeOrder({ orders: [unit("b", "90000", "0.01", { instrumentId: 999 })], expiresAfter: expiresAfter() }),
  );
  await call("updatePerpInstrumentLeverage", () => trader.updatePerpInstrumentLeverage({ instrumentId: 1, leverage: 5 }));
}

async function money(vault) {
  await call("accountInternalBalanceTransferRequest", () =>
    trader.accountInternalBalanceTransferRequest({ collateralId: 1, amount: "50", toDerivativesAccount: false }),
  );
  await call("accountDerivativeBalanceTransferRequest", () =>
    trader.accountDerivativeBalanceTransferRequest({ collateralId: 1, amount: "25", destination: other.account.address }),
  );
  await call("depositToVault", () => trader.depositToVault({ vaultAddress: vault, amount: "10" }));
}

async function queries(vault) {
  await call("oracle", () => info.oracle({ symbol: "BTC" }));
  await call("instruments", () => info.instruments({ type: "all" }));
  await call("ticker", () => info.ticker({ symbol: "BTC-PERP" }));
  await call("orderbook", () => info.orderbook({ symbol: "BTC-PERP", depth: 10 }));
  await call("positions", () => info.positions({ user }));
  await call("accountSummary", () => info.accountSummary({ user }));
  await call("tradeHistory", () => info.tradeHistory({ user }));
  await call("orderHistory", () => info.orderHistory({ user }));
  await call("transferHistory", () => info.transferHistory({ user }));
  await call("instrumentLeverage", () => info.instrumentLeverage({ user, symbol: "BTC-PERP" }));
  await call("accountInfo", () => info.accountInfo({ user }));
  await call("vaultBalances", () => info.vaultBalances({ vaultAddress: vault, user }));
  await call("blocks", () => info.blocks({ offset: 0, limit: 5 }));
  await call("subVaults", () => info.subVaults({ vaultAddress: vault }));
  await call("bad_query", () => info.ticker({ symbol: "NOPE-PERP" }));
}

async function subscriptions() {
  const subs = new SubscriptionClient({ transport: wsTransport });
  const got = { ticker: [], order: [] };
  await call("subscribe.ticker", async () => (await subs.ticker({ symbol: "BTC-PERP" }, (e) => got.ticker.push(e.detail))).subscriptionId);
  await call("subscribe.order", async () =>
    (await subs.accountOrderUpdates({ address: user }, (e) => got.order.push(e.detail))).subscriptionId,
  );
  note("subscribe.ticker.picture", await waitFor(() => got.ticker.length > 0));
  const seen = got.order.length;
  await trader.placeOrder({ orders: [unit("b", "85000", "0.01")], expiresAfter: expiresAfter() });
  note("subscribe.order.update", await waitFor(() => got.order.length > seen));
  note("subscribe.order.last", got.order.at(-1) ?? null);
  await trader.cancelAll({ expiresAfter: expiresAfter() });
}

try {
  const vault = (await info.vaults({})).vaults[0].vault_address;
  await trading();
  await money(vault);
  await queries(vault);
  await subscriptions();
} finally {
  await wsTransport.disconnect();
}
console.log(JSON.stringify(results));
process.exit(0); // the SDK's keep-alive timers would hold the process open
