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
const CHAIN = 11155111; // a chain the exchange bridges USDC to
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

async function account() {
  const agentKey = generatePrivateKey();
  const agent = privateKeyToAccount(agentKey);
  await call("addAgent", () =>
    trader.addAgent({
      agentName: "ts-compat-agent",
      agent: agent.address,
      forAccount: "",
      validUntil: Date.now() + HOUR_MS,
      agentPrivateKey: agentKey,
      signer: user,
    }),
  );
  await call("agents", () => info.agents({ user }));
  const bot = new ExchangeClient({
    transport: httpTransport,
    wallet: createWalletClient({ account: agent, chain: mainnet, transport: http() }),
  });
  await call("placeOrder.agent", () => bot.placeOrder({ orders: [unit("b", "87000", "0.01")], expiresAfter: expiresAfter() }));
  await call("cancelAll.agent", () => bot.cancelAll({ expiresAfter: expiresAfter() }));
  await call("revokeAgent", () => trader.revokeAgent({ agent: agent.address }));
  await call("placeOrder.revoked", () =>
    bot.placeOrder({ orders: [unit("b", "87000", "0.01")], expiresAfter: expiresAfter() }),
  );
  await call("approveBrokerFee", () => trader.approveBrokerFee({ broker: other.account.address, maxFeeRate: "0.01" }));
  const code = `TS${Math.random().toString(16).slice(2, 10).toUpperCase()}`;
  note("referral_code", code);
  await call("createReferralCode", () => trader.createReferralCode({ code }));
  await call("setReferrer", () => counterparty.setReferrer({ code }));
  await call("claimReferralRewards", () => trader.claimReferralRewards({ collateralId: 1, spot: true }));
  await call("referralSummary", () => info.referralSummary({ user }));
  await call("referralSummary.other", () => info.referralSummary({ user: other.account.address }));
}

async function money(vault, openVault) {
  await call("accountInternalBalanceTransferRequest", () =>
    trader.accountInternalBalanceTransferRequest({ collateralId: 1, amount: "50", toDerivativesAccount: false }),
  );
  await call("accountDerivativeBalanceTransferRequest", () =>
    trader.accountDerivativeBalanceTransferRequest({ collateralId: 1, amount: "25", destination: other.account.address }),
  );
  await call("accountSpotBalanceTransferRequest", () =>
    trader.accountSpotBalanceTransferRequest({ collateralId: 1, amount: "5", destination: other.account.address }),
  );
  await call("accountSpotWithdrawRequest", () =>
    trader.accountSpotWithdrawRequest({ collateralId: 1, amount: "10", chainId: CHAIN }),
  );
  await call("accountDerivativeWithdrawRequest", () =>
    trader.accountDerivativeWithdrawRequest({ collateralId: 1, amount: "10", chainId: CHAIN }),
  );
  await call("depositToVault", () => trader.depositToVault({ vaultAddress: vault, amount: "10" }));
  await call("depositToVault.open", () => trader.depositToVault({ vaultAddress: openVault, amount: "20" }));
  await call("redeemFromVault", () => trader.redeemFromVault({ vaultAddress: openVault, shares: "20" }));
}

async function queries(vault) {
  const nowS = Math.floor(Date.now() / 1000);
  await call("oracle", () => info.oracle({ symbol: "BTC" }));
  await call("supportedCollateral", () => info.supportedCollateral({ symbol: "all" }));
  await call("trades", () => info.trades({ symbol: "BTC-PERP", limit: 5 }));
  await call("mids", () => info.mids({ symbol: "all" }));
  await call("bbo", () => info.bbo({ symbol: "BTC-PERP" }));
  await call("chart", () =>
    info.chart({ symbol: "BTC-PERP", resolution: "1", from: nowS - 3600, to: nowS + 60, chart_type: "ltp" }),
  );
  await call("openOrders", () => info.openOrders({ user }));
  await call("userFeeInfo", () => info.userFeeInfo({ user }));
  await call("accountHistory", () => info.accountHistory({ user }));
  await call("fundingHistory", () => info.fundingHistory({ user }));
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
  const txHash = results["placeOrder.rest"]?.value?.tx_hash;
  note("sealed", await sealed(txHash));
  const tx = await call("transactionDetails", () => info.transactionDetails({ tx_hash: txHash }));
  await call("blockDetails", () => info.blockDetails({ block_height: tx?.block_height ?? 1 }));
  await call("transactions", () => info.transactions({ offset: 0, limit: 5, filter: { account: user } }));
  await call("subVaults", () => info.subVaults({ vaultAddress: vault }));
  await call("bad_query", () => info.ticker({ symbol: "NOPE-PERP" }));
}

async function sealed(txHash) {
  // an action's transaction is sealed into a block within one block interval
  const deadline = Date.now() + DEADLINE_MS;
  while (Date.now() < deadline) {
    try {
      if ((await info.transactionDetails({ tx_hash: txHash })).block_height) return true;
    } catch {
      // not sealed yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function subscriptions() {
  const subs = new SubscriptionClient({ transport: wsTransport });
  const got = {};
  const listen = (name) => {
    got[name] = [];
    return (event) => got[name].push(event.detail);
  };
  const channels = {
    ticker: () => subs.ticker({ symbol: "BTC-PERP" }, listen("ticker")),
    mids: () => subs.mids({ symbol: "BTC-PERP" }, listen("mids")),
    bbo: () => subs.bbo({ symbol: "BTC-PERP" }, listen("bbo")),
    orderbook: () => subs.orderbook({ instrumentId: "BTC-PERP" }, listen("orderbook")),
    trade: () => subs.trade({ instrumentId: "BTC-PERP" }, listen("trade")),
    order: () => subs.accountOrderUpdates({ address: user }, listen("order")),
    positions: () => subs.positions({ address: user }, listen("positions")),
    fills: () => subs.fills({ address: user }, listen("fills")),
    accountSummary: () => subs.accountSummary({ user }, listen("accountSummary")),
    balance: () => subs.accountBalanceUpdates({ address: user }, listen("balance")),
    blocks: () => subs.blocks({}, listen("blocks")),
    transactions: () => subs.transactions({}, listen("transactions")),
  };
  for (const [name, subscribe] of Object.entries(channels)) {
    await call(`subscribe.${name}`, async () => (await subscribe()).subscriptionId);
  }
  note("subscribe.ticker.picture", await waitFor(() => got.ticker.length > 0));
  note("subscribe.orderbook.picture", await waitFor(() => got.orderbook.length > 0));
  const seen = Object.fromEntries(Object.entries(got).map(([name, list]) => [name, list.length]));
  const grew = (name) => waitFor(() => got[name].length > seen[name]);
  await trader.placeOrder({ orders: [unit("b", "85000", "0.01")], expiresAfter: expiresAfter() });
  note("subscribe.order.update", await grew("order"));
  note("subscribe.order.last", got.order.at(-1) ?? null);
  await trader.cancelAll({ expiresAfter: expiresAfter() });
  await counterparty.placeOrder({ orders: [unit("s", "100000", "0.01")], expiresAfter: expiresAfter() });
  await trader.placeOrder({ orders: [unit("b", "100000", "0.01", { tif: "IOC" })], expiresAfter: expiresAfter() });
  for (const name of ["trade", "fills", "positions", "accountSummary", "balance", "blocks", "transactions"]) {
    note(`subscribe.${name}.update`, await grew(name));
  }
}

try {
  const vaults = (await info.vaults({})).vaults;
  const openVault = vaults.reduce((a, b) => (b.lock_in_period < a.lock_in_period ? b : a)).vault_address;
  const vault = vaults.find((v) => v.vault_address !== openVault).vault_address;
  await trading();
  await account();
  await money(vault, openVault);
  await queries(vault);
  await subscriptions();
} finally {
  await wsTransport.disconnect();
}
console.log(JSON.stringify(results));
process.exit(0); // the SDK's keep-alive timers would hold the process open
