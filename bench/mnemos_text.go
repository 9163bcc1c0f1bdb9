package bench

// Synthetic questions, answers and notes for yakor bench mnemos.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

type mnemosQ struct {
	topic, tmpl int
	ru          bool
	slots       []any
}

// mnemosAsk is a question recall is measured on.
type mnemosAsk struct {
	kind, text, lang string
}

var mnemosKinds = []string{"paraphrase of a stored question", "new question, stored themes", "unrelated question"}

type mnemosLang struct {
	slots     func(r *rand.Rand) []any
	questions []string
	answers   []string
	wrong     []string // wrong answers (L3)
	reasons   []string // why they were wrong
	themes    []string // L2 themes
	titles    []string // L2 titles: %[1]v the theme
}

type mnemosTopic [2]mnemosLang // English, Russian

type mnemosGen struct{ topics []mnemosTopic }

func pickOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

type mnemosCity struct{ en, ru, ruIn, ruTo, ruFrom string }

var (
	mnemosCities = []mnemosCity{
		{"Moscow", "Москва", "в Москве", "в Москву", "из Москвы"}, {"Kazan", "Казань", "в Казани", "в Казань", "из Казани"},
		{"Novosibirsk", "Новосибирск", "в Новосибирске", "в Новосибирск", "из Новосибирска"}, {"Yekaterinburg", "Екатеринбург", "в Екатеринбурге", "в Екатеринбург", "из Екатеринбурга"},
		{"Samara", "Самара", "в Самаре", "в Самару", "из Самары"}, {"Saint Petersburg", "Санкт-Петербург", "в Санкт-Петербурге", "в Санкт-Петербург", "из Санкт-Петербурга"},
		{"Minsk", "Минск", "в Минске", "в Минск", "из Минска"}, {"Almaty", "Алматы", "в Алматы", "в Алматы", "из Алматы"},
		{"Tbilisi", "Тбилиси", "в Тбилиси", "в Тбилиси", "из Тбилиси"}, {"Yerevan", "Ереван", "в Ереване", "в Ереван", "из Еревана"},
		{"Berlin", "Берлин", "в Берлине", "в Берлин", "из Берлина"}, {"Warsaw", "Варшава", "в Варшаве", "в Варшаву", "из Варшавы"},
		{"Riga", "Рига", "в Риге", "в Ригу", "из Риги"}, {"Istanbul", "Стамбул", "в Стамбуле", "в Стамбул", "из Стамбула"},
		{"Dubai", "Дубай", "в Дубае", "в Дубай", "из Дубая"}, {"Prague", "Прага", "в Праге", "в Прагу", "из Праги"},
		{"Lisbon", "Лиссабон", "в Лиссабоне", "в Лиссабон", "из Лиссабона"}, {"Vienna", "Вена", "в Вене", "в Вену", "из Вены"},
		{"Nizhny Novgorod", "Нижний Новгород", "в Нижнем Новгороде", "в Нижний Новгород", "из Нижнего Новгорода"}, {"Krasnodar", "Краснодар", "в Краснодаре", "в Краснодар", "из Краснодара"},
	}
	mnemosItemsEN = []string{"birch plywood 18 mm", "MDF board 16 mm", "laminated chipboard", "oak parquet", "steel pipe 40 mm", "copper cable 3x2.5",
		"ceramic floor tiles", "gypsum board", "pine beams 100x100", "roofing sheets", "LED panels", "cement M500", "mineral wool", "PVC windows",
		"aluminium profile", "OSB-3 12 mm", "porcelain stoneware", "facade bricks", "reinforcing bar A500", "kitchen worktops"}
	mnemosItemsRU = []string{"фанера берёзовая 18 мм", "ЛДСП 16 мм", "МДФ плита", "дубовый паркет", "труба стальная 40 мм", "кабель ВВГ 3х2,5",
		"напольная плитка", "гипсокартон", "брус сосновый 100х100", "профнастил", "светодиодные панели", "цемент М500", "минвата", "пластиковые окна",
		"алюминиевый профиль", "OSB-3 12 мм", "керамогранит", "облицовочный кирпич", "арматура А500", "столешницы"}
	mnemosUnitsEN = [][2]string{{"sheet", "sheets"}, {"square metre", "square metres"}, {"tonne", "tonnes"}, {"metre", "metres"}, {"piece", "pieces"}, {"pallet", "pallets"}}
	mnemosUnitsRU = [][2]string{{"за лист", "листов"}, {"за м²", "м²"}, {"за тонну", "тонн"}, {"за метр", "метров"}, {"за штуку", "штук"}, {"за поддон", "поддонов"}}
	mnemosCurEN   = []string{"roubles", "USD", "EUR", "tenge", "lari"}
	mnemosCurRU   = []string{"руб.", "долл.", "евро", "тенге", "лари"}
	mnemosMonthEN = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	mnemosMonthRU = []string{"в январе", "в феврале", "в марте", "в апреле", "в мае", "в июне", "в июле", "в августе", "в сентябре", "в октябре", "в ноябре", "в декабре"}
	mnemosLangs   = []string{"Go", "Python", "TypeScript", "Rust", "Java", "Kotlin", "C#", "PHP"}
	mnemosLibs    = []string{"the standard library", "pgx", "requests", "axios", "tokio", "Spring", "FastAPI", "Laravel", "sqlx", "Ktor"}
	mnemosErrors  = []string{"context deadline exceeded", "connection refused", "unexpected EOF", "permission denied", "out of memory", "invalid UTF-8", "too many open files", "deadlock detected"}
	mnemosDoEN    = []string{"parse JSON", "retry HTTP requests", "read a large CSV file", "connect to PostgreSQL", "stream a file upload", "cancel a long query",
		"hash passwords", "sort records by date", "format dates in UTC", "paginate query results", "upload files to S3", "test an HTTP handler", "limit concurrent workers", "read environment variables"}
	mnemosDoRU = []string{"распарсить JSON", "повторять HTTP-запросы", "прочитать большой CSV", "подключиться к PostgreSQL", "стримить загрузку файла", "отменить долгий запрос",
		"хешировать пароли", "отсортировать записи по дате", "форматировать даты в UTC", "сделать пагинацию", "загрузить файлы в S3", "протестировать HTTP-обработчик", "ограничить число воркеров", "читать переменные окружения"}
	mnemosPrefixEN = []string{"", "", "", "Hi, ", "Quick question: ", "Hello! ", "Please tell me: ", "Sorry to bother you, ", "One more thing: "}
	mnemosSuffixEN = []string{"", "", "", " Thanks!", " It's urgent.", " We need it for a client.", " Asking for a project next month.", " Thank you in advance."}
	mnemosPrefixRU = []string{"", "", "", "Здравствуйте! ", "Подскажите, ", "Вопрос: ", "Добрый день. ", "Ещё вопрос: "}
	mnemosSuffixRU = []string{"", "", "", " Спасибо!", " Срочно.", " Это для клиента.", " Нужно к следующей неделе.", " Заранее спасибо."}
)

func newMnemosGen() *mnemosGen {
	num := func(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	prices := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsEN)
				return []any{pickOf(r, mnemosItemsEN), u[0], "in " + pickOf(r, mnemosCities).en, num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"How much does %[1]v cost per %[2]v %[3]v?",
				"What is the current price of %[1]v %[3]v if we buy %[4]v %[5]v?",
				"Price check: %[4]v %[5]v of %[1]v %[3]v, what will it cost?",
				"Can you quote %[1]v for %[4]v %[5]v %[3]v, with any bulk discount?",
			},
			answers: []string{
				"%[1]v costs about %[6]v %[7]v per %[2]v %[3]v. For %[4]v %[5]v most suppliers give 3–7%% off; prices change weekly, so check the current list before you order.",
				"Expect %[6]v %[7]v per %[2]v for %[1]v %[3]v; an order of %[4]v %[5]v usually gets the wholesale price. Delivery and cutting are charged separately.",
			},
			wrong:   []string{"%[1]v is %[6]v %[7]v per pallet whatever the quantity.", "Prices for %[1]v %[3]v are fixed by law, so no discount is possible."},
			reasons: []string{"The price was per pallet, not per %[2]v, and the bulk discount for %[4]v %[5]v was ignored.", "There is no fixed price for %[1]v; the answer invented a rule."},
			themes:  []string{"Building material prices", "Wholesale discounts", "Sheet material price trends"},
			titles:  []string{"%[1]v: what changed this quarter", "%[1]v — a buyer's guide", "How suppliers set prices: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsRU)
				return []any{pickOf(r, mnemosItemsRU), u[0], pickOf(r, mnemosCities).ruIn, num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько стоит %[1]v %[2]v %[3]v?",
				"Какая сейчас цена: %[1]v %[3]v, если брать %[4]v %[5]v?",
				"Посчитайте %[4]v %[5]v, %[1]v %[3]v — сколько выйдет?",
				"Дайте цену на %[1]v, объём %[4]v %[5]v, %[3]v, со скидкой за опт.",
			},
			answers: []string{
				"%[1]v %[3]v стоит около %[6]v %[7]v %[2]v. При заказе от %[4]v %[5]v обычно дают скидку 3–7%%; цены меняются еженедельно, уточняйте актуальный прайс.",
				"Ориентир — %[6]v %[7]v %[2]v (%[1]v, %[3]v). На %[4]v %[5]v действует оптовая цена, доставка и распил считаются отдельно.",
			},
			wrong:   []string{"%[1]v стоит %[6]v %[7]v за поддон при любом объёме.", "Цены на %[1]v %[3]v фиксированы, скидок не бывает."},
			reasons: []string{"Цена указана за поддон, а не %[2]v, и не учтена оптовая скидка.", "Фиксированной цены на %[1]v нет, ответ выдумал правило."},
			themes:  []string{"Цены на стройматериалы", "Оптовые скидки", "Динамика цен на листовые материалы"},
			titles:  []string{"%[1]v: что изменилось за квартал", "%[1]v — памятка покупателю", "Как поставщики считают цену: %[1]v"},
		},
	}
	vat := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				rate := pickOf(r, []int{20, 10, 0, 12, 18, 7, 19})
				amount := num(r, 1000, 500000)
				return []any{pickOf(r, mnemosItemsEN), rate, pickOf(r, []string{"company", "sole trader", "private buyer", "non-resident", "small business"}),
					pickOf(r, []string{"Germany", "China", "Turkey", "Kazakhstan", "Belarus", "Italy", "Poland", "Uzbekistan"}), amount, amount * rate / (100 + rate), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"Is %[2]v%% VAT included in the price of %[1]v for a %[3]v?",
				"Does a %[3]v pay %[2]v%% VAT on %[1]v imported from %[4]v?",
				"How can a %[3]v reclaim the VAT on an invoice of %[5]v %[7]v for %[1]v?",
				"Our supplier from %[4]v charged %[2]v%% VAT on %[1]v; is that right for a %[3]v?",
			},
			answers: []string{
				"For a %[3]v, %[1]v from %[4]v is taxed at %[2]v%%. An invoice of %[5]v %[7]v includes %[6]v %[7]v of VAT, which can be reclaimed with a proper VAT invoice and the customs declaration.",
				"Yes: %[2]v%% VAT applies to %[1]v bought by a %[3]v. Of %[5]v %[7]v, %[6]v %[7]v is VAT; keep the invoice to deduct it in the quarterly return.",
			},
			wrong:   []string{"VAT never applies to %[1]v imported from %[4]v.", "A %[3]v can always reclaim twice the VAT paid."},
			reasons: []string{"Imports are taxed at %[2]v%% at the border; the answer told a %[3]v not to pay it.", "Only the VAT actually paid, %[6]v %[7]v, can be deducted."},
			themes:  []string{"VAT on imports", "VAT deductions for small business", "VAT rates by country"},
			titles:  []string{"%[1]v: the rules in brief", "%[1]v explained with examples", "Common mistakes: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				rate := pickOf(r, []int{20, 10, 0, 12, 18, 7, 19})
				amount := num(r, 1000, 500000)
				return []any{pickOf(r, mnemosItemsRU), rate, pickOf(r, []string{"юрлицо", "ИП", "физлицо", "нерезидент", "малый бизнес"}),
					pickOf(r, []string{"из Германии", "из Китая", "из Турции", "из Казахстана", "из Беларуси", "из Италии", "из Польши", "из Узбекистана"}), amount, amount * rate / (100 + rate), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Входит ли НДС %[2]v%% в цену на позицию «%[1]v», если покупатель %[3]v?",
				"Платит ли %[3]v НДС %[2]v%% за «%[1]v», ввезённые %[4]v?",
				"Как %[3]v вернуть НДС по счёту на %[5]v %[7]v за «%[1]v»?",
				"Поставщик %[4]v начислил НДС %[2]v%% на «%[1]v» — это правильно, если мы %[3]v?",
			},
			answers: []string{
				"Для покупателя (%[3]v) ставка НДС на «%[1]v» %[4]v — %[2]v%%. В счёте на %[5]v %[7]v НДС составляет %[6]v %[7]v; его можно принять к вычету при наличии счёта-фактуры.",
				"Да, НДС %[2]v%% применяется. Из %[5]v %[7]v налог — %[6]v %[7]v; сохраните счёт-фактуру и таможенную декларацию для вычета.",
			},
			wrong:   []string{"На «%[1]v» %[4]v НДС не начисляется никогда.", "%[3]v может вернуть двойную сумму НДС."},
			reasons: []string{"Импорт облагается НДС %[2]v%% на границе, а ответ советовал не платить.", "К вычету принимается только уплаченный НДС, %[6]v %[7]v."},
			themes:  []string{"НДС при импорте", "Вычеты НДС для малого бизнеса", "Ставки НДС по странам"},
			titles:  []string{"%[1]v: правила кратко", "%[1]v на примерах", "Типичные ошибки: %[1]v"},
		},
	}
	delivery := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsEN)
				return []any{pickOf(r, mnemosItemsEN), pickOf(r, mnemosCities).en, num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"How long does delivery of %[4]v %[5]v of %[1]v to %[2]v take?",
				"Can you deliver %[1]v to %[2]v within %[3]v days?",
				"What does shipping %[4]v %[5]v of %[1]v to %[2]v cost?",
				"Is express delivery of %[1]v to %[2]v possible this week?",
			},
			answers: []string{
				"Delivery of %[1]v to %[2]v takes %[3]v working days; %[4]v %[5]v fit on one truck for about %[6]v %[7]v. Express in 1–2 days costs roughly double.",
				"To %[2]v we ship %[1]v in %[3]v days by road; for %[4]v %[5]v the freight is about %[6]v %[7]v, unloading not included.",
			},
			wrong:   []string{"Delivery of %[1]v to %[2]v is always free and next-day.", "We do not deliver to %[2]v at all."},
			reasons: []string{"Delivery to %[2]v takes %[3]v days and costs about %[6]v %[7]v.", "The carrier serves %[2]v; the answer refused a possible order."},
			themes:  []string{"Delivery times to the regions", "Freight costs by truck", "Express delivery options"},
			titles:  []string{"%[1]v: the carriers compared", "%[1]v — what affects the price", "%[1]v in practice"},
		},
		{
			slots: func(r *rand.Rand) []any {
				u := pickOf(r, mnemosUnitsRU)
				return []any{pickOf(r, mnemosItemsRU), pickOf(r, mnemosCities).ruTo, num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько идёт доставка %[4]v %[5]v (%[1]v) %[2]v?",
				"Сможете привезти %[1]v %[2]v за %[3]v дней?",
				"Сколько стоит доставка %[4]v %[5]v, %[1]v, %[2]v?",
				"Возможна ли срочная доставка: %[1]v %[2]v на этой неделе?",
			},
			answers: []string{
				"Доставка %[2]v занимает %[3]v рабочих дней; %[4]v %[5]v (%[1]v) помещаются в одну машину, это около %[6]v %[7]v. Срочная за 1–2 дня — примерно вдвое дороже.",
				"Везём %[1]v %[2]v автотранспортом за %[3]v дней; за %[4]v %[5]v фрахт около %[6]v %[7]v без разгрузки.",
			},
			wrong:   []string{"Доставка %[2]v всегда бесплатная и на следующий день.", "%[2]v мы не возим."},
			reasons: []string{"Доставка %[2]v занимает %[3]v дней и стоит около %[6]v %[7]v.", "Перевозчик возит %[1]v %[2]v, ответ зря отказал."},
			themes:  []string{"Сроки доставки в регионы", "Стоимость фуры", "Срочная доставка"},
			titles:  []string{"%[1]v: сравнение перевозчиков", "%[1]v — от чего зависит цена", "%[1]v на практике"},
		},
	}
	rent := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				return []any{num(r, 20, 400), pickOf(r, []string{"flat", "office", "warehouse", "shop", "studio", "garage"}),
					pickOf(r, []string{"centre", "north", "riverside", "old town", "business district", "suburbs"}), "in " + pickOf(r, mnemosCities).en,
					num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"What is the monthly rent for a %[1]v m² %[2]v %[4]v, %[3]v?",
				"Is %[5]v %[7]v a month a fair rent for a %[1]v m² %[2]v %[4]v?",
				"Can I break a %[6]v-month lease on a %[2]v %[4]v early?",
				"Who pays the utilities when renting a %[2]v in the %[3]v %[4]v?",
			},
			answers: []string{
				"A %[1]v m² %[2]v in the %[3]v %[4]v rents for about %[5]v %[7]v a month. Leases of %[6]v months usually allow early termination with two months' notice; utilities are normally paid by the tenant.",
				"Around %[5]v %[7]v a month is typical for a %[2]v of %[1]v m² %[4]v (%[3]v). Check the notice period in the %[6]v-month lease and who pays for heating.",
			},
			wrong:   []string{"Rent %[4]v is regulated at a fixed rate per m².", "A %[6]v-month lease can never be ended early."},
			reasons: []string{"Rents are set by the market; about %[5]v %[7]v a month is typical.", "Most %[6]v-month leases allow early termination with notice."},
			themes:  []string{"Commercial rent", "Residential leases", "Rent rates by district"},
			titles:  []string{"%[1]v: a tenant's checklist", "%[1]v — market overview", "What to check before signing: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				return []any{num(r, 20, 400), pickOf(r, []string{"квартира", "офис", "склад", "магазин", "студия", "гараж"}),
					pickOf(r, []string{"центр", "север", "набережная", "старый город", "деловой район", "пригород"}), pickOf(r, mnemosCities).ruIn,
					num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Сколько стоит аренда: %[2]v %[1]v м² %[4]v, район %[3]v?",
				"Нормальная ли цена %[5]v %[7]v в месяц: %[2]v %[1]v м² %[4]v?",
				"Можно ли досрочно расторгнуть договор аренды на %[6]v мес. (%[2]v %[4]v)?",
				"Кто платит коммуналку, если снимать — %[2]v, район %[3]v, %[4]v?",
			},
			answers: []string{
				"%[2]v %[1]v м² %[4]v (%[3]v) сдаётся примерно за %[5]v %[7]v в месяц. Договор на %[6]v мес. обычно можно расторгнуть, предупредив за два месяца; коммунальные платежи, как правило, на арендаторе.",
				"Около %[5]v %[7]v в месяц — рыночная цена (%[2]v, %[1]v м², %[4]v). Проверьте срок уведомления в договоре на %[6]v мес. и кто платит за отопление.",
			},
			wrong:   []string{"Аренда %[4]v регулируется государством по фиксированной ставке.", "Договор на %[6]v мес. нельзя расторгнуть досрочно."},
			reasons: []string{"Ставки рыночные, около %[5]v %[7]v в месяц.", "Большинство договоров на %[6]v мес. допускают расторжение с уведомлением."},
			themes:  []string{"Коммерческая аренда", "Аренда жилья", "Ставки аренды по районам"},
			titles:  []string{"%[1]v: чек-лист арендатора", "%[1]v — обзор рынка", "Что проверить до подписания: %[1]v"},
		},
	}
	travel := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				a, b := pickOf(r, mnemosCities), pickOf(r, mnemosCities)
				return []any{a.en, b.en, pickOf(r, mnemosMonthEN), pickOf(r, []string{"train", "flight", "bus", "ferry", "car"}), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, mnemosCurEN)}
			},
			questions: []string{
				"What is the cheapest way to get from %[1]v to %[2]v in %[3]v?",
				"Should I take the %[4]v from %[1]v to %[2]v in %[3]v?",
				"How many days do I need for a trip from %[1]v to %[2]v by %[4]v?",
				"Do I need a visa to travel from %[1]v to %[2]v in %[3]v?",
			},
			answers: []string{
				"In %[3]v the %[4]v from %[1]v to %[2]v is usually cheapest, about %[5]v %[7]v one way; plan %[6]v days for the trip with a day to rest.",
				"Taking the %[4]v from %[1]v to %[2]v costs around %[5]v %[7]v in %[3]v; book two weeks ahead and allow %[6]v days in total.",
			},
			wrong:   []string{"There is no way to get from %[1]v to %[2]v in %[3]v.", "The %[4]v from %[1]v to %[2]v is always free for tourists."},
			reasons: []string{"Several connections run in %[3]v; the %[4]v costs about %[5]v %[7]v.", "Tickets cost about %[5]v %[7]v; nothing is free."},
			themes:  []string{"Train or plane", "Travel budgets", "Visa rules for short trips"},
			titles:  []string{"%[1]v: a season-by-season guide", "%[1]v — saving on tickets", "%[1]v for business travellers"},
		},
		{
			slots: func(r *rand.Rand) []any {
				a, b := pickOf(r, mnemosCities), pickOf(r, mnemosCities)
				return []any{a.ruFrom, b.ruTo, pickOf(r, mnemosMonthRU), pickOf(r, []string{"поезде", "самолёте", "автобусе", "пароме", "машине"}), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, mnemosCurRU)}
			},
			questions: []string{
				"Как дешевле всего добраться %[1]v %[2]v %[3]v?",
				"Стоит ли ехать %[1]v %[2]v на %[4]v %[3]v?",
				"Сколько дней заложить на поездку %[1]v %[2]v на %[4]v?",
				"Нужна ли виза, чтобы поехать %[1]v %[2]v %[3]v?",
			},
			answers: []string{
				"%[3]v дешевле всего ехать %[1]v %[2]v на %[4]v — около %[5]v %[7]v в одну сторону; на поездку заложите %[6]v дн. с днём на отдых.",
				"На %[4]v %[1]v %[2]v %[3]v выйдет около %[5]v %[7]v; берите билеты за две недели и закладывайте %[6]v дн.",
			},
			wrong:   []string{"%[3]v %[1]v %[2]v добраться невозможно.", "На %[4]v туристы ездят бесплатно."},
			reasons: []string{"Рейсы есть, на %[4]v около %[5]v %[7]v.", "Билеты стоят около %[5]v %[7]v."},
			themes:  []string{"Поезд или самолёт", "Бюджет поездки", "Визы для коротких поездок"},
			titles:  []string{"%[1]v: гид по сезонам", "%[1]v — как сэкономить на билетах", "%[1]v для командировок"},
		},
	}
	code := mnemosTopic{
		{
			slots: func(r *rand.Rand) []any {
				return []any{pickOf(r, mnemosDoEN), pickOf(r, mnemosLangs), pickOf(r, mnemosLibs), pickOf(r, mnemosErrors)}
			},
			questions: []string{
				"How do I %[1]v in %[2]v with %[3]v?",
				"What is the idiomatic way to %[1]v in %[2]v?",
				"Why does my %[2]v code fail with %[4]v when I %[1]v using %[3]v?",
				"Show me a minimal %[2]v example to %[1]v.",
			},
			answers: []string{
				"In %[2]v, use %[3]v to %[1]v: create the client once, pass a context with a timeout, and check every error. If you see %[4]v, the usual cause is a closed connection or a missing timeout.",
				"The idiomatic %[2]v way to %[1]v is with %[3]v; keep it in one small function, close what you open with defer or try-with-resources, and log %[4]v with the request id.",
			},
			wrong:   []string{"You cannot %[1]v in %[2]v; switch languages.", "Ignore %[4]v; it is harmless."},
			reasons: []string{"%[3]v does it in a few lines.", "%[4]v means the operation failed and must be handled."},
			themes:  []string{"HTTP clients and retries", "Database access patterns", "Error handling"},
			titles:  []string{"%[1]v in practice", "%[1]v: pitfalls", "A checklist: %[1]v"},
		},
		{
			slots: func(r *rand.Rand) []any {
				return []any{pickOf(r, mnemosDoRU), pickOf(r, mnemosLangs), pickOf(r, mnemosLibs), pickOf(r, mnemosErrors)}
			},
			questions: []string{
				"Как %[1]v на %[2]v через %[3]v?",
				"Как правильно %[1]v на %[2]v?",
				"Почему код на %[2]v падает с ошибкой %[4]v, когда я пытаюсь %[1]v через %[3]v?",
				"Покажите минимальный пример на %[2]v: %[1]v.",
			},
			answers: []string{
				"На %[2]v для этого есть %[3]v: создайте клиент один раз, передавайте контекст с таймаутом и проверяйте каждую ошибку. Ошибка %[4]v обычно означает закрытое соединение или отсутствие таймаута.",
				"Идиоматичный способ на %[2]v — %[3]v; вынесите это в маленькую функцию, закрывайте ресурсы и логируйте %[4]v с идентификатором запроса.",
			},
			wrong:   []string{"На %[2]v это сделать нельзя, смените язык.", "Ошибку %[4]v можно игнорировать."},
			reasons: []string{"%[3]v делает это в несколько строк.", "%[4]v значит, что операция не удалась."},
			themes:  []string{"HTTP-клиенты и повторы", "Работа с базой данных", "Обработка ошибок"},
			titles:  []string{"%[1]v на практике", "%[1]v: подводные камни", "Чек-лист: %[1]v"},
		},
	}
	return &mnemosGen{topics: []mnemosTopic{prices, vat, delivery, rent, travel, code}}
}

func (g *mnemosGen) lang(q mnemosQ) mnemosLang {
	if q.ru {
		return g.topics[q.topic][1]
	}
	return g.topics[q.topic][0]
}

// question is a new question: a third in Russian.
func (g *mnemosGen) question(r *rand.Rand) mnemosQ {
	q := mnemosQ{topic: r.IntN(len(g.topics)), ru: r.IntN(3) == 0}
	l := g.lang(q)
	q.slots, q.tmpl = l.slots(r), r.IntN(len(l.questions))
	return q
}

// text words q with its template between a random greeting and close.
func (q mnemosQ) text(r *rand.Rand) string {
	pre, suf := mnemosPrefixEN, mnemosSuffixEN
	if q.ru {
		pre, suf = mnemosPrefixRU, mnemosSuffixRU
	}
	l := mnemosThemes.lang(q)
	return pickOf(r, pre) + fmt.Sprintf(l.questions[q.tmpl], q.slots...) + pickOf(r, suf)
}

// mnemosThemes is the one set of themes; it holds no state.
var mnemosThemes = newMnemosGen()

func (g *mnemosGen) answer(r *rand.Rand, q mnemosQ) string {
	return fmt.Sprintf(pickOf(r, g.lang(q).answers), q.slots...)
}

func (g *mnemosGen) wrong(r *rand.Rand, q mnemosQ) (answer, reason string) {
	l := g.lang(q)
	i := r.IntN(len(l.wrong))
	return fmt.Sprintf(l.wrong[i], q.slots...), fmt.Sprintf(l.reasons[i], q.slots...)
}

// note is an L2 study note: a theme, an article's title and a note of
// several answers on the theme.
func (g *mnemosGen) note(r *rand.Rand) (topic, title, note string) {
	q := g.question(r)
	l := g.lang(q)
	topic = pickOf(r, l.themes)
	title = fmt.Sprintf(pickOf(r, l.titles), topic)
	var b strings.Builder
	for range 3 + r.IntN(4) {
		q.slots = l.slots(r)
		b.WriteString(g.answer(r, q))
		b.WriteByte(' ')
	}
	return topic, title, strings.TrimSpace(b.String())
}

// paraphrase asks q in other words: another template, the same slots.
func (g *mnemosGen) paraphrase(r *rand.Rand, q mnemosQ) mnemosQ {
	n := len(g.lang(q).questions)
	q.tmpl = (q.tmpl + 1 + r.IntN(n-1)) % n
	return q
}

var (
	mnemosOffEN = []string{
		"Who won the football match between %v and %v last night?",
		"Give me a recipe for %v without %v.",
		"Write a short poem about %v in the style of %v.",
		"What film should I watch tonight with %v and %v?",
		"How do I teach %v to %v?",
	}
	mnemosOffRU = []string{
		"Кто выиграл вчерашний матч %v — %v?",
		"Дай рецепт: %v без %v.",
		"Напиши короткое стихотворение про %v в стиле %v.",
		"Какой фильм посмотреть вечером с %v и %v?",
		"Как научить %v %v?",
	}
	mnemosOffWordsEN = []string{"Arsenal", "Barcelona", "pumpkin soup", "eggs", "the sea", "Pushkin", "my grandmother", "a puppy", "sit still", "autumn rain", "dumplings", "gluten", "my cat", "chess", "the kids", "a parrot"}
	mnemosOffWordsRU = []string{"Спартак", "Зенит", "тыквенный суп", "яйца", "море", "Пушкин", "бабушкой", "щенка", "сидеть спокойно", "осенний дождь", "пельмени", "глютена", "кота", "шахматы", "детьми", "попугая"}
)

// ask is the i-th kind of question recall is measured on: a paraphrase of
// a stored question, a new question on the stored themes, or an unrelated
// one.
func (g *mnemosGen) ask(r *rand.Rand, sample []mnemosQ, i int) mnemosAsk {
	kind := i % len(mnemosKinds)
	if kind == 0 && len(sample) == 0 {
		kind = 1
	}
	var q mnemosQ
	switch kind {
	case 0:
		q = g.paraphrase(r, pickOf(r, sample))
	case 1:
		q = g.question(r)
	default:
		ru := r.IntN(3) == 0
		tmpls, words, lang := mnemosOffEN, mnemosOffWordsEN, "en"
		if ru {
			tmpls, words, lang = mnemosOffRU, mnemosOffWordsRU, "ru"
		}
		return mnemosAsk{kind: mnemosKinds[2], lang: lang, text: fmt.Sprintf(pickOf(r, tmpls), pickOf(r, words), pickOf(r, words))}
	}
	lang := "en"
	if q.ru {
		lang = "ru"
	}
	return mnemosAsk{kind: mnemosKinds[kind], text: q.text(r), lang: lang}
}
