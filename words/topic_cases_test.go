package words_test

// topicCase is one message of the topic case table: the topic a reader
// would write for it, cut from the message (want), and the other cuts a
// reader would still accept (also). want "" means the message has no topic
// (chit-chat, thanks, a bare request).
type topicCase struct {
	text    string
	exclude []string
	want    string
	also    []string
}

// topicCases are real and realistic messages in English and Russian: price
// lists, calculations, deadlines, names, chit-chat, questions, code and
// long texts, from the product's own scenarios (README, web and anchors
// tests), LoCoMo-style chat (bench/testdata) and everyday requests.
var topicCases = []topicCase{
	// Price lists and calculations, English.
	{text: "Price list for the kitchen: oak board 3400 per sheet, birch panel 1250 per sheet, 12 sheets of oak in total.", want: "Price list for the kitchen"},
	{text: "Price list: board 3400, panel 1250", want: "Price list: board", also: []string{"Price list"}},
	{text: "Price list: oak board 3400 per sheet, birch panel 1250 per sheet.", want: "Price list: oak board", also: []string{"Price list"}},
	{text: "Supplier price list for December:\n1. Egger chipboard, item A-001 — 150 RUB\n2. Kronospan MDF, item A-002 — 547 RUB", want: "Supplier price list for December", also: []string{"Supplier price list"}},
	{text: "Here is the price list: oak veneer board 18 mm costs $45 per sheet. Total: $1,350.", want: "price list", also: []string{"price list: oak veneer board"}},
	{text: "Price list total: 12345 RUB", want: "Price list total"},
	{text: "Can you calculate the total for 12 sheets at 3400 each?", want: "total", also: []string{"total for 12 sheets"}},
	{text: "Convert the total to dollars", want: "total to dollars", also: []string{"total"}},
	{text: "Total: 3 × 1250 = 3750", want: "Total"},
	{text: "3 × 1250 = 3750", want: ""},
	{text: "The sofa costs €120", want: "sofa"},
	{text: "The sofa is 31500", want: "sofa"},
	{text: "What is the sofa price?", want: "sofa price"},
	{text: "What did one oak board cost?", want: "oak board", also: []string{"one oak board"}},
	{text: "What does a board cost?", want: "board"},
	{text: "Is there a discount for orders over 100 sheets?", want: "discount for orders", also: []string{"discount"}},
	{text: "Our budget for the renovation is 450000 rubles.", want: "budget for the renovation"},
	{text: "What was the project budget again?", want: "project budget"},
	// Deadlines and plans, English.
	{text: "The truck comes on Friday, delivery costs 2500.", want: "truck", also: []string{"delivery"}},
	{text: "The installation team charges 9000.", want: "installation team"},
	{text: "Deadline: Friday, March 14.", want: "Deadline: Friday", also: []string{"Deadline"}},
	{text: "We need to ship the new release by the end of the month.", want: "new release"},
	{text: "The meeting moved to 3 pm on Thursday.", want: "meeting"},
	{text: "Send me the invoice by Monday, please.", want: "invoice"},
	{text: "Let us discuss the kitchen installation dates and the crew's schedule.", want: "kitchen installation dates", also: []string{"kitchen installation dates and the crew's schedule"}},
	{text: "I signed up for a full marathon in Rotterdam next April.", want: "full marathon in Rotterdam"},
	{text: "Notes from the call with the supplier: they can deliver 40 sheets on Tuesday, price stays 3400.", want: "Notes from the call with the supplier", also: []string{"Notes from the call", "call with the supplier"}},
	{text: "# Migration plan\n\n1. Dump the database\n2. Restore it on Postgres 16", want: "Migration plan"},
	// Names and people, English.
	{text: "Remember: my name is Ann and my budget is 60000 rubles.", want: "name", also: []string{"my name"}},
	{text: "My sister Lena is moving to Lisbon in March.", want: "sister Lena", also: []string{"My sister Lena"}},
	{text: "Maya, guess what, I finished the half marathon in Ghent!", exclude: []string{"Maya", "Tomas"}, want: "half marathon in Ghent"},
	{text: "Tomas, I need advice, I am thinking about learning to drive.", exclude: []string{"Maya", "Tomas"}, want: "learning to drive", also: []string{"advice"}},
	{text: "My instructor is called Pieter and he is very patient.", want: "instructor", also: []string{"My instructor"}},
	// Chit-chat, English.
	{text: "Hello, how are you?", want: ""},
	{text: "Thanks, that's great!", want: ""},
	{text: "ok", want: ""},
	{text: "lol yes exactly", want: ""},
	{text: "Let us catch up again soon, I have to run to practice now.", want: "", also: []string{"practice"}},
	{text: "I adopted a cat from the shelter last weekend.", want: "cat from the shelter", also: []string{"cat"}},
	{text: "How was Lisbon, by the way?", want: "Lisbon"},
	{text: "Any news from work?", want: "news from work", also: []string{"news"}},
	{text: "She drinks her chamomile tea from it every morning now.", want: "chamomile tea"},
	// Questions and requests, English.
	{text: "Hi! Can you help me plan a birthday party for my daughter?", want: "birthday party for my daughter", also: []string{"birthday party"}},
	{text: "What is the weather like in Paris?", want: "weather", also: []string{"weather in Paris"}},
	{text: "Could you explain the difference between TCP and UDP?", want: "difference between TCP and UDP"},
	{text: "How do I reverse a linked list in Python?", want: "linked list in Python", also: []string{"linked list"}},
	{text: "I'm working on the migration from Postgres 14 to Postgres 16.", want: "migration from Postgres 14 to Postgres 16", also: []string{"migration from Postgres 14"}},
	{text: "Please write a short poem about autumn.", want: "short poem about autumn", also: []string{"short poem"}},
	{text: "Tell me about the history of Rome", want: "history of Rome"},
	{text: "Convert 100 usd please", want: "usd", also: []string{"100 usd"}},
	// Code, English.
	{text: "Why does this panic?\n```go\nfunc main() {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n```", want: "panic"},
	{text: "```python\ndef add(a, b):\n    return a + b\n```", want: ""},
	// Long text, English.
	{text: "We are planning a two-week trip to Japan in October. First Tokyo for five days, then Kyoto and Osaka. The main question is the budget: flights are about 90000 rubles each, and hotels around 8000 a night. Can you help me split it by days?", want: "two-week trip to Japan", also: []string{"two-week trip to Japan in October", "trip to Japan"}},
	{text: "Hi Tomas! It has been ages, how are you doing? I started pottery classes on Tuesday evenings at the community studio.", exclude: []string{"Tomas"}, want: "pottery classes", also: []string{"pottery classes on Tuesday evenings"}},

	// Price lists and calculations, Russian.
	{text: "Нужен прайс-лист на ЛДСП", want: "прайс-лист на ЛДСП"},
	{text: "Прайс:\n- ЛДСП 16 мм — 3 400 руб/лист\n- ДВП 3 мм — 910 руб/лист\n- **Итого:** 4 310 ₽\nДоставка бесплатно", want: "Прайс: ЛДСП", also: []string{"Прайс"}},
	{text: "Прайс на ЛДСП для кухни: ЛДСП Egger 16 мм — 3400 руб за лист.", want: "Прайс на ЛДСП для кухни", also: []string{"Прайс на ЛДСП"}},
	{text: "Прайс: ЛДСП Egger 3400 руб.", want: "Прайс: ЛДСП Egger", also: []string{"Прайс"}},
	{text: "ЛДСП 16 мм — 3 400 руб/лист", want: "ЛДСП", also: []string{"ЛДСП 16 мм"}},
	{text: "Итого: 285 600 руб", want: "Итого"},
	{text: "Итого ЛДСП: 12 листов, 40800 руб.", want: "Итого ЛДСП"},
	{text: "Расчёт: 3 листа × 3400 = 10 200 руб", want: "Расчёт"},
	{text: "Площадь стола 1.2 x 0.8 = 0.96", want: "Площадь стола"},
	{text: "Скидка 15% на фасады, доставка 2 дня", want: "Скидка 15% на фасады", also: []string{"Скидка", "Скидка на фасады"}},
	{text: "Посчитай итого", want: "итого"},
	{text: "Переведи итог в доллары по курсу 74.62", want: "итог в доллары", also: []string{"итог в доллары по курсу"}},
	{text: "Сколько будет стоить кухня из ЛДСП Egger?", want: "кухня из ЛДСП Egger"},
	{text: "Бюджет проекта — 1,2 млн рублей.", want: "Бюджет проекта"},
	{text: "Напомни, какой у нас бюджет на ремонт?", want: "бюджет на ремонт"},
	{text: "Доставка по Москве стоит 2500 рублей, за МКАД — 40 руб/км.", want: "Доставка по Москве"},
	{text: "Сделай таблицу расходов за март", want: "таблицу расходов за март", also: []string{"таблицу расходов"}},
	// Deadlines and plans, Russian.
	{text: "Доставка в пятницу, не раньше.", want: "Доставка в пятницу"},
	{text: "Дедлайн в пятницу", want: "Дедлайн в пятницу"},
	{text: "Срок сдачи проекта — 20 марта.", want: "Срок сдачи проекта"},
	{text: "Встреча с заказчиком перенесена на 15:00 четверга.", want: "Встреча с заказчиком"},
	{text: "Какие сроки у монтажа кухни?", want: "сроки у монтажа кухни", also: []string{"сроки"}},
	{text: "Когда приедет бригада?", want: "бригада"},
	{text: "Давайте обсудим сроки монтажа кухни и график работ бригады.", want: "сроки монтажа кухни"},
	{text: "Я работаю над миграцией Postgres 14 на Postgres 16", want: "миграцией Postgres 14 на Postgres 16", also: []string{"миграцией Postgres 14"}},
	{text: "Хочу заказать шкаф-купе в спальню.", want: "шкаф-купе в спальню", also: []string{"шкаф-купе"}},
	{text: "Напиши письмо поставщику о задержке поставки", want: "письмо поставщику о задержке поставки", also: []string{"письмо поставщику"}},
	// Names and people, Russian.
	{text: "Каролина, расскажи про ВНЖ Казахстана", exclude: []string{"Каролина"}, want: "ВНЖ Казахстана"},
	{text: "Привет, Мелани! Как дела у Мелани с ВНЖ?", exclude: []string{"Мелани"}, want: "ВНЖ"},
	{text: "Меня зовут Анна", exclude: []string{"Анна"}, want: ""},
	{text: "Моего брата зовут Игорь.", want: "брата", also: []string{"Моего брата"}},
	{text: "Мы переехали в Алматы в 2019 году", want: "Алматы"},
	{text: "В 2019 году мы переехали в Алматы", want: "Алматы"},
	// Chit-chat, Russian.
	{text: "Привет! Как дела?", want: ""},
	{text: "Спасибо, всё понятно", want: ""},
	{text: "Ок, договорились", want: ""},
	{text: "Ну что, продолжим?", want: ""},
	{text: "Посчитай", want: ""},
	{text: "Кстати, мой кот опять спит на клавиатуре", want: "кот"},
	// Questions and requests, Russian.
	{text: "Нужно ли начислять НДС на медицинские услуги?", want: "НДС на медицинские услуги"},
	{text: "Как настроить nginx как обратный прокси?", want: "nginx", also: []string{"обратный прокси"}},
	{text: "А что насчёт доставки по Москве?", want: "доставки по Москве"},
	{text: "Сравни тарифы МТС и Билайн", want: "тарифы МТС и Билайн"},
	{text: "Погода в Париже какая?", want: "Погода в Париже"},
	{text: "Отправь счёт до понедельника, пожалуйста.", want: "счёт"},
	{text: "Пусть x = 5, тогда посмотрим", want: ""},
	// Code, Russian.
	{text: "Почему этот код падает?\n```go\nvar m map[string]int\nm[\"a\"] = 1\n```", want: "код"},
	// Long text, Russian.
	{text: "Мы планируем ремонт кухни. Площадь 12 м², хотим фасады из МДФ и столешницу из камня. Бюджет до 600 тысяч. Подскажи, с чего начать?", want: "ремонт кухни"},
	{text: "Нужен прайс на ЛДСП. Какие цены на ЛДСП у поставщика сегодня? ЛДСП берём у него.", want: "прайс на ЛДСП"},
}
