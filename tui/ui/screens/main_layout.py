"""The main screen's grid: wide and narrow, tall and short (the breakpoints are ``MainScreen``'s)."""

MAIN_CSS = """
    MainScreen {
        layout: vertical;
    }
    MainScreen #grid {
        height: 1fr;
        layout: grid;
        grid-size: 3 4;
        grid-columns: 1fr 46 30;
        grid-rows: 10 1fr 6 9;  /* the orders' cell: 6 rows of orders under the tab strip and the header */
        visibility: hidden;  /* its cells cover it: not drawn (Textual kept its 44 lines and their cuts) */
    }
    MainScreen #grid > * {
        visibility: visible;
    }
    MainScreen #book, MainScreen #tape {
        row-span: 2;
        height: 1fr;
    }
    MainScreen #positions, MainScreen #orders-tabs {
        column-span: 3;
        height: 1fr;
    }
    MainScreen #markets, MainScreen #chart {
        height: 1fr;
    }
    MainScreen.-narrow #grid {
        grid-size: 2 4;
        grid-columns: 1fr 40;
    }
    MainScreen.-narrow #tape {
        display: none;
    }
    MainScreen.-narrow #positions, MainScreen.-narrow #orders-tabs {
        column-span: 2;
    }
    /* narrow: the book and the tape share a cell (v shows the other) */
    MainScreen.-narrow.-show-tape #tape {
        display: block;
    }
    MainScreen.-narrow.-show-tape #book {
        display: none;
    }
    /* short: the book, the tape and the chart share the right-hand column, one at a time (v cycles them);
       the markets, positions and orders get the rest of the width */
    MainScreen.-short #grid {
        grid-size: 2 3;
        grid-rows: 10 1fr 1fr;
        grid-columns: 1fr 46;
    }
    /* narrow and short (80x24): the positions and the orders take the whole width, so a position's side, size,
       entry, mark, uPnL, liquidation price and stop-loss are all in view; the book (or tape, or chart) shares
       the top row with the markets */
    MainScreen.-narrow.-short #grid {
        grid-columns: 1fr 40;
        grid-rows: 10 1fr 1fr;
    }
    MainScreen.-narrow.-short #book, MainScreen.-narrow.-short #tape, MainScreen.-narrow.-short #chart {
        row-span: 1;
    }
    MainScreen.-narrow.-short #positions, MainScreen.-narrow.-short #orders-tabs {
        column-span: 2;
    }
    MainScreen.-short #book, MainScreen.-short #tape, MainScreen.-short #chart {
        row-span: 3;
        display: none;
    }
    MainScreen.-short.-show-book #book, MainScreen.-short.-show-tape #tape, MainScreen.-short.-show-chart #chart {
        display: block;
    }
    MainScreen.-short #positions, MainScreen.-short #orders-tabs {
        column-span: 1;
    }
    /* open orders and fills share a cell: a one-line tab strip stands where their top border was */
    MainScreen #orders-tabs > ContentTabs {
        height: 1;
    }
    MainScreen #orders-tabs Underline {
        display: none;
    }
    MainScreen #orders-tabs Tab.-active {
        text-style: bold underline;
    }
    MainScreen #orders-tabs, MainScreen #orders-tabs > ContentSwitcher, MainScreen #orders-tabs TabPane {
        visibility: hidden;  /* the tab strip and the table cover the cell's containers: not drawn */
    }
    MainScreen #orders-tabs > ContentTabs, MainScreen #orders, MainScreen #fills {
        visibility: visible;
    }
    MainScreen #orders-tabs > ContentSwitcher, MainScreen #orders-tabs TabPane, MainScreen #orders, MainScreen #fills {
        height: 1fr;
        padding: 0;
    }
    MainScreen #orders, MainScreen #fills, MainScreen #orders:focus-within, MainScreen #fills:focus-within {
        border-top: none;
    }
    /* z: the pane fills the screen, whatever its grid cell (or a shared cell that hid it) gave it */
    MainScreen.-maximized-view .-maximized {
        display: block;
        width: 1fr;
        height: 1fr;
    }
"""
